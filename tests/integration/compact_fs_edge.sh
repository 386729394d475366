#!/usr/bin/env bash
# (d) file-system edge cases: symlinks to files and dirs inside and outside the tree are never
# followed or deleted through; names with spaces and non-ASCII; zero-length files; a file still
# being written (declared size > file size) is left alone until it is complete.
source "$(dirname "$0")/compact_lib.sh" "$@"

root="$T/dir with space/数据 é"
"$DUMPGEN" tree --out "$root" --layout all --files 120 --seed 14
"$DUMPGEN" tree --out "$T/outside" --layout all --files 40 --seed 15
snapshot "$T/outside" > "$T/outside_before"

first_ge() { find "$1/ge-rank/msit_ge_dump" -mindepth 2 -type f | sort | sed -n "${2}p"; }
out_file=$(first_ge "$T/outside" 1)
in_file=$(first_ge "$root" 2)
leaf=$(dirname "$(first_ge "$root" 1)")
fx_leaf=$(dirname "$(find "$root/fx-rank" -name '*.npy' | sort | head -1)")
out_npy=$(find "$T/outside/fx-rank" -name '*.npy' | sort | head -1)

ln -s "$out_file" "$leaf/Add.Add_9001.1.1.1748764800999999"     # file outside, dump-like name
ln -s "$(dirname "$out_file")" "$leaf/linked_outside_dir"       # directory outside
ln -s "$in_file" "$leaf/Mul.Mul_9002.1.1.1748764800999998"      # file inside
ln -s "$root/fx-rank" "$leaf/linked_inside_dir"                 # directory inside
: > "$leaf/Cast.Cast_9003.1.1.1748764800999997"                  # zero-length
growing="$leaf/Mul.Mul_9004.1.1.1748764800999996"
cp "$out_file" "$growing"
truncate -s -7 "$growing"                                       # declared size > file size
growing_sum=$(sha256sum < "$growing")
odd_npy="$fx_leaf/my node é-aten.add.Tensor.OUTPUT.0.20250601080000000001.npy"
cp "$out_npy" "$odd_npy"

rc=$(run_compact "$root" --jobs 2)
expect_rc 1 "$rc" "compact with a zero-length and a growing file"
"$DUMPGEN" verify --manifest "$root/manifest.json" --tree "$root" --expect-raw-gone

snapshot "$T/outside" > "$T/outside_after"
diff -u "$T/outside_before" "$T/outside_after" || fail "files outside the tree were touched"
for l in Add.Add_9001.1.1.1748764800999999 linked_outside_dir Mul.Mul_9002.1.1.1748764800999998 linked_inside_dir; do
  [ -L "$leaf/$l" ] || fail "symlink $l was removed or replaced"
  ! summarised "$leaf/$l" || fail "symlink $l was summarised (followed)"
done
[ "$(readlink "$leaf/Add.Add_9001.1.1.1748764800999999")" = "$out_file" ] || fail "symlink target changed"
[ -f "$leaf/Cast.Cast_9003.1.1.1748764800999997" ] && [ ! -s "$leaf/Cast.Cast_9003.1.1.1748764800999997" ] \
  || fail "zero-length file removed or changed"
[ "$(sha256sum < "$growing")" = "$growing_sum" ] || fail "growing file changed"
! summarised "$growing" || fail "growing file was summarised"
[ ! -e "$odd_npy" ] || fail "npy with spaces/non-ASCII in its name was not compacted"
summarised "$odd_npy" || fail "summary of the non-ASCII name missing"
grep -q "Mul.Mul_9004" "$T/compact.err" || fail "growing file not reported"

# The writer finishes: the next run compacts it.
cp "$out_file" "$growing"
rc=$(run_compact "$root" --jobs 2)
expect_rc 1 "$rc" "second compact (zero-length file still fails)"
compacted "$growing" || fail "completed file not compacted"
diff -u "$T/outside_before" <(snapshot "$T/outside") || fail "outside tree touched on the second run"
echo "compact_fs_edge: ok"
