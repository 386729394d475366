# compare: required options and ranges (2), missing dumps (3).
run compare
run compare -m missing-a
run compare -m missing-a -g missing-b
run compare -m a -g b --sketch-width 3
run compare -m a -g b --jobs 2000
