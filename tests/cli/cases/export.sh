# export: a missing root (3), a tree without a store (3), a bad --format (2).
run export
run export missing
mkdir -p empty
run export empty
run export --format xml empty
