#!/bin/sh
# Fake Android `uiautomator dump [--compressed] [FILE]`: copies the sim's current XML to FILE
# (default /sdcard/window_dump.xml). On an injected idle-state error it prints the error,
# exits 0 and leaves any earlier dump file in place, like the real one (DumpCommand.run prints
# the ERROR line and returns before writing; its success line spells "hierchary"):
# https://github.com/aosp-mirror/platform_frameworks_base/blob/4fecab570da64a1956352aedf1b3245d3ba26030/cmds/uiautomator/cmds/uiautomator/src/com/android/commands/uiautomator/DumpCommand.java
# The fault files it reads are written by sim/faults.ts, screen.sh (the XML, and whether an
# app switch is still drawing, motion.ts) by the sim. With /dev/tty (or /dev/stdout) as FILE the
# XML goes to its output, as `adb shell uiautomator dump /dev/tty` prints it on a phone. With an
# idle wait (sim/motion.ts dumpIdle) it first waits for the screen to be quiet, as a phone does.
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

# Milliseconds since the epoch, on the clock sim/sim_phone.ts writes sim_changed_ms with.
sim_now_ms() { date +%s%3N; }
sim_sleep_ms() { sleep "$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))"; }

# The phone's own wait before a dump (sim/motion.ts dumpIdle): returns once the screen has been
# quiet for $1 ms since max(the dump's start, its last change), or fails after $2 ms of change.
# An app switch drawing is change all along. Sleeps until the quiet time would be reached, then
# looks again (the screen may have changed meanwhile), so a calm screen costs one sleep.
sim_wait_idle() {
  sim_start=$(sim_now_ms)
  while :; do
    . "$S/screen.sh"
    sim_now=$(sim_now_ms)
    sim_last=$sim_changed_ms
    [ "$sim_drawing" = 1 ] && sim_last=$sim_now
    [ "$sim_last" -lt "$sim_start" ] && sim_last=$sim_start
    [ $((sim_now - sim_last)) -ge "$1" ] && return 0
    [ $((sim_now - sim_start)) -ge "$2" ] && return 1
    sim_left=$((sim_last + $1 - sim_now))
    sim_cap=$((sim_start + $2 - sim_now))
    [ "$sim_cap" -lt "$sim_left" ] && sim_left=$sim_cap
    sim_sleep_ms "$sim_left"
  done
}

if [ -n "$sim_dump_idle" ]; then
  sim_quiet=${sim_dump_idle%% *}
  sim_rest=${sim_dump_idle#* }
  sim_max=${sim_rest%% *}
  sim_work=${sim_rest#* }
  if ! sim_wait_idle "$sim_quiet" "$sim_max"; then
    echo "ERROR: could not get idle state." >&2
    exit 0
  fi
  sim_sleep_ms "$sim_work"
  # The tree as it is once quiet, not as it was when the dump started.
  . "$S/screen.sh"
elif [ "$sim_launching" = 1 ]; then
  # No idle wait (INSTANT_MOTION) and an app switch still drawing (launchTree "idle-error"): the
  # error at once, standing in for the 10 s a phone would spend before giving up.
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
