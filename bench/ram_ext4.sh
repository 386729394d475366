#!/usr/bin/env bash
# A journaled ext4 (mkfs.ext4 defaults, as on an inference host's NVMe) on a loop device whose
# image lives in RAM (/dev/shm), for the benchmarks that the VM's own disk cannot feed: its
# root filesystem runs ext4 without a journal and with `discard`, where every file create scans
# the inode bitmaps for recently freed inodes (~1,700 creates/s for msit-dumpgen) and every
# removal waits for a synchronous discard. Point a benchmark at it with TMPDIR=MOUNTPOINT.
# fsync on it reaches no device: its figures show what the code costs in CPU, not a disk.
# Needs root (mount -o loop).
# Usage: bench/ram_ext4.sh mount [MOUNTPOINT=/mnt/msit-ram] [SIZE=4G]
#        bench/ram_ext4.sh umount [MOUNTPOINT=/mnt/msit-ram]
set -euo pipefail
action=${1:-}
mnt=${2:-/mnt/msit-ram}
size=${3:-4G}
image="/dev/shm/msit-ram-ext4-$(basename "$mnt").img"

case $action in
  mount)
    if mountpoint -q "$mnt"; then
      echo "ram_ext4: $mnt is already a mount point; unmount it first" >&2
      exit 2
    fi
    if [[ -e $image ]]; then
      echo "ram_ext4: $image exists (an earlier run not unmounted?); remove it first" >&2
      exit 2
    fi
    truncate -s "$size" "$image"
    mkfs.ext4 -q -F "$image"
    mkdir -p "$mnt"
    mount -o loop "$image" "$mnt"
    echo "ram_ext4: $size journaled ext4 on $mnt (image $image); run benchmarks with TMPDIR=$mnt"
    ;;
  umount)
    umount "$mnt"
    rm -f "$image"
    echo "ram_ext4: $mnt unmounted, $image removed"
    ;;
  *)
    sed -n '2,10s/^# \{0,1\}//p' "$0" >&2
    exit 2
    ;;
esac
