#!/bin/sh
# Fake Android `screencap`: -p prints the sim's current PNG, no flag prints the raw RGBA frame,
# a FILE argument writes there (PNG when -p is given or the name ends in .png), as in
# https://github.com/aosp-mirror/platform_frameworks_base/blob/c3c40e691dca0c2d82550ebb8dc50159938521a3/cmds/screencap/screencap.cpp
# The fault file it reads is written by tests/sim/faults.ts.
SIM_TOOL=screencap
. "$SIM_BIN/sim_lib.sh"

png=0
file=
while [ $# -gt 0 ]; do
  case $1 in
    -p | --png) png=1 ;;
    -d) shift ;;
    -h | --help)
      echo "usage: screencap [-hp] [-d display-id] [FILENAME]" >&2
      exit 0
      ;;
    -*) ;;
    *) file=$1 ;;
  esac
  [ $# -gt 0 ] && shift
done
case $file in *.png) png=1 ;; esac

if [ "$png" = 1 ]; then
  src=$S/screen.png
  # The fault "empty PNG" (some MIUI builds after long sessions) only hits the PNG encoder.
  if [ -e "$S/fault_empty_png" ]; then src=$S/screen_$(cat "$S/fault_empty_png").png; fi
else
  src=$S/screen.raw
fi

if [ -n "$file" ]; then
  sim_map "$file"
  if ! cp "$src" "$P" 2>/dev/null; then
    echo "Error opening file: $file (No such file or directory)" >&2
    exit 1
  fi
else
  cat "$src"
fi
