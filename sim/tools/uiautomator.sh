#!/bin/sh
# Fake Android `uiautomator dump [--compressed] [FILE]`: copies the sim's current XML to FILE
# (default /sdcard/window_dump.xml). On an injected idle-state error it prints the error,
# exits 0 and leaves any earlier dump file in place, like the real one (DumpCommand.run prints
# the ERROR line and returns before writing; its success line spells "hierchary"):
# https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java
# The fault files it reads are written by sim/faults.ts, screen.sh (the XML, and whether an
# app switch is still drawing, motion.ts) by the sim. With /dev/tty (or /dev/stdout) as FILE the
# XML goes to its output, as `adb shell uiautomator dump /dev/tty` prints it on a phone.
SIM_TOOL=uiautomator
. "$SIM_BIN/sim_lib.sh"
. "$S/screen.sh"

if [ "${1-}" != dump ]; then
  cat <<'USAGE'
Usage: uiautomator <subcommand> [options]

Available subcommands:

help: displays help message

runtest: executes UI automation tests
    runtest <class spec> [options]

dump: creates an XML dump of current UI hierarchy
    dump [--verbose][file]
      [--compressed]: dumps compressed layout information.
      [file]: the location where the dumped XML should be stored, default is
      /sdcard/window_dump.xml

events: prints out accessibility events until terminated
USAGE
  exit 0
fi
shift

compressed=0
file=/sdcard/window_dump.xml
for a in "$@"; do
  case $a in
    --compressed) compressed=1 ;;
    -*) ;;
    *) file=$a ;;
  esac
done

# An app switch still drawing (sim/motion.ts, launchTree "idle-error"): the dumper gives up
# waiting for the screen to be idle, whichever form was asked for. On a phone that takes up to
# 10 s of waiting; the sim answers at once.
if [ "$sim_launching" = 1 ]; then
  echo "ERROR: could not get idle state." >&2
  exit 0
fi

sim_slurp "$S/fault_idle_errors" 2>/dev/null
errors=$sim_text
case $errors in '' | *[!0-9]*) errors=0 ;; esac
if [ "$errors" -gt 0 ] && { [ "$compressed" = 0 ] || [ -e "$S/fault_idle_even_compressed" ]; }; then
  echo $((errors - 1)) >"$S/fault_idle_errors"
  cat "$S/fault_idle_message" >&2
  exit 0
fi

xml=$sim_xml name=screen.xml
[ "$compressed" = 1 ] && xml=$sim_xml_compressed name=screen_compressed.xml
case $file in
  /dev/tty | /dev/stdout)
    # The XML has no trailing newline, so the confirmation follows it on the same line. A ROM
    # that cannot open /dev/tty (fault file) writes nothing: the dumper only logs the failure.
    [ -e "$S/fault_tty_refused" ] || printf '%s' "$xml"
    ;;
  *)
    sim_map "$file"
    # What `cp` of a file with that name would write, with no process: into a folder under the
    # file's own name, else over the file.
    [ -d "$P" ] && P=$P/$name
    if ! { printf '%s' "$xml" >"$P"; } 2>/dev/null; then
      echo "ERROR: could not write dump to $file" >&2
      exit 0
    fi
    ;;
esac
echo "UI hierchary dumped to: $file"
