#!/bin/sh
# Fake Android `screencap`: -p prints the sim's current PNG, no flag prints the raw RGBA frame,
# a FILE argument writes there (PNG when -p is given or the name ends in .png), as in
# https://github.com/aosp-mirror/platform_frameworks_base/blob/c3c40e691dca0c2d82550ebb8dc50159938521a3/cmds/screencap/screencap.cpp
# (usage on stderr and exit 1 for -h, an unknown option or two file names; the file is opened
# before the capture, and a refused capture closes it empty and returns 1 without a word).
# The fault file it reads is written by sim/faults.ts; screen.sh by the sim.
SIM_TOOL=screencap
. "$SIM_BIN/sim_lib.sh"
. "$S/screen.sh"

usage() {
  cat >&2 <<'USAGE'
usage: screencap [-hp] [-d display-id] [FILENAME]
   -h: this message
   -p: save the file as a png.
   -d: specify the physical display ID to capture (default: 4619827259835644672)
       see "dumpsys SurfaceFlinger --display-id" for valid display IDs.
If FILENAME ends with .png it will be saved as a png.
If FILENAME is not given, the results will be printed to stdout.
USAGE
  exit 1
}

png=0
file=
files=0
while [ $# -gt 0 ]; do
  case $1 in
    -p) png=1 ;;
    -d) [ $# -gt 1 ] || { echo "screencap: option requires an argument -- 'd'" >&2; usage; }; shift ;;
    -h) usage ;;
    -?*) echo "screencap: invalid option -- '$(printf %s "$1" | cut -c2)'" >&2; usage ;;
    *) file=$1; files=$((files + 1)) ;;
  esac
  shift
done
[ "$files" -gt 1 ] && usage
case $file in *.png) png=1 ;; esac

if [ -n "$file" ]; then
  sim_map "$file"
  if ! : >"$P" 2>/dev/null; then
    echo "Error opening file: $file (No such file or directory)" >&2
    exit 1
  fi
fi

# A FLAG_SECURE window: Android 10-14 refuse the capture (ScreenshotClient::capture fails and
# main returns 1 with nothing printed; through exec-out the status is lost). Android 15 paints the
# secure layers black, which the sim already did to the frame (docs/android.md, screencap).
if [ "$sim_secure_window" = 1 ] && [ "${SIM_SECURE_CAPTURE-}" != black ]; then
  exit 1
fi

if [ "$png" = 1 ]; then
  src=$S/screen.png
  # The fault "empty PNG" (some MIUI builds after long sessions) only hits the PNG encoder.
  # "zero": no bytes at all; "header": the signature and IHDR alone (screen_header.png).
  if [ -e "$S/fault_empty_png" ]; then
    sim_slurp "$S/fault_empty_png"
    src=/dev/null
    [ "$sim_text" = header ] && src=$S/screen_header.png
  fi
else
  src=$S/screen.raw
fi

# The fault "metadata chunk": the PNG's signature and IHDR (33 bytes), a tEXt chunk, the rest.
emit() {
  if [ "$png" = 1 ] && [ "$src" = "$S/screen.png" ] && [ -e "$S/fault_png_chunk" ]; then
    head -c 33 "$src"
    cat "$S/fault_png_chunk"
    tail -c +34 "$src"
  else
    cat "$src"
  fi
}

if [ -n "$file" ]; then
  emit >"$P"
else
  emit
fi
