# Every command's help text (`help CMD` is checked to be the same by run.sh).
for cmd in compact watch compare inspect status restore export; do run "$cmd" --help; done
