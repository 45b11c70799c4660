#!/bin/sh
# Fake Android `uiautomator dump [--compressed] [FILE]`: copies the sim's current XML to FILE
# (default /sdcard/window_dump.xml). On an injected idle-state error it prints the error,
# exits 0 and leaves any earlier dump file in place, like the real one (DumpCommand.run prints
# the ERROR line and returns before writing; its success line spells "hierchary"):
# https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java
# The fault files it reads are written by tests/sim/faults.ts, `launching` by the sim's motion. With /dev/tty (or /dev/stdout) as
# FILE the XML goes to its output, as `adb shell uiautomator dump /dev/tty` prints it on a phone.
SIM_TOOL=uiautomator
. "$SIM_BIN/sim_lib.sh"

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

# An app switch still drawing (tests/sim/motion.ts, launchTree "idle-error"): the dumper gives up
# waiting for the screen to be idle, whichever form was asked for. On a phone that takes up to
# 10 s of waiting; the sim answers at once.
if [ "$(cat "$S/launching" 2>/dev/null)" = 1 ]; then
  echo "ERROR: could not get idle state." >&2
  exit 0
fi

errors=$(cat "$S/fault_idle_errors" 2>/dev/null)
case $errors in '' | *[!0-9]*) errors=0 ;; esac
if [ "$errors" -gt 0 ] && { [ "$compressed" = 0 ] || [ -e "$S/fault_idle_even_compressed" ]; }; then
  echo $((errors - 1)) >"$S/fault_idle_errors"
  cat "$S/fault_idle_message" >&2
  exit 0
fi

src=$S/screen.xml
[ "$compressed" = 1 ] && src=$S/screen_compressed.xml
case $file in
  /dev/tty | /dev/stdout)
    # The XML has no trailing newline, so the confirmation follows it on the same line. A ROM
    # that cannot open /dev/tty (fault file) writes nothing: the dumper only logs the failure.
    [ -e "$S/fault_tty_refused" ] || cat "$src"
    ;;
  *)
    sim_map "$file"
    if ! cp "$src" "$P" 2>/dev/null; then
      echo "ERROR: could not write dump to $file" >&2
      exit 0
    fi
    ;;
esac
echo "UI hierchary dumped to: $file"
