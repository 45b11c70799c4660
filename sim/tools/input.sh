#!/bin/sh
# Fake Android `input`: records argv; the sim applies taps, swipes, text and keys afterwards
# (text the virtual key map cannot produce, anything non-ASCII, types nothing at all).
# How a bad command line is reported depends on the release ($SIM_INPUT, from sim/android.ts):
# - app_process (Android 10-11): Input extends BaseCommand, whose run() catches the
#   IllegalArgumentException, prints the usage, a blank line and "Error: " + its message on
#   stderr, and returns normally: exit 0. Any other exception (the NullPointerException of
#   non-ASCII text) is a stack trace and System.exit(1).
#   https://github.com/aosp-mirror/platform_frameworks_base/blob/76e804db5aa27c39b7a05478a8eebceb7bc2ef13/cmds/input/src/com/android/commands/input/Input.java
#   https://github.com/aosp-mirror/platform_frameworks_base/blob/4e6aa13480a58be54800a9fd52ebf7d8d2b57335/core/java/com/android/internal/os/BaseCommand.java
# - cmd (Android 12+): InputShellCommand; any exception becomes "\nException occurred while
#   executing '<first argument>':" and a stack trace on stderr, exit 255 (res stays -1); an
#   unknown sub-command prints "Unknown command: X" on stdout and exits 0; no argument prints
#   the help on stdout.
#   https://github.com/aosp-mirror/platform_frameworks_base/blob/b11dd06439584fb231812b0fd50e887df88cef0d/services/core/java/com/android/server/input/InputShellCommand.java
#   https://github.com/aosp-mirror/platform_frameworks_base/blob/4514ae98768d3c1ef30d3bf4878d999e26b6ffcc/core/java/android/os/BasicShellCommandHandler.java
SIM_TOOL=input
. "$SIM_BIN/sim_lib.sh"

usage() {
  echo "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]"
  echo
  echo "The sources are: "
  for src in keyboard mouse joystick touchnavigation touchpad trackball dpad stylus gamepad touchscreen; do
    echo "      $src"
  done
  echo
  echo "The commands and default sources are:"
  echo "      text <string> (Default: touchscreen)"
  echo "      keyevent [--longpress] <key code number or name> ... (Default: keyboard)"
  echo "      tap <x> <y> (Default: touchscreen)"
  echo "      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)"
  echo "      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)"
  echo "      press (Default: trackball)"
  echo "      roll <dx> <dy> (Default: trackball)"
  echo "      motionevent <DOWN|UP|MOVE> <x> <y> (Default: touchscreen)"
}

first=${1-}

# IllegalArgumentException(message): how each release reports a bad command line.
illegal() {
  if [ "${SIM_INPUT-}" = app_process ]; then
    usage >&2
    echo >&2
    echo "Error: $1" >&2
    exit 0
  fi
  printf '\nException occurred while executing '"'"'%s'"'"':\n' "$first" >&2
  echo "java.lang.IllegalArgumentException: $1" >&2
  echo "	at com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:290)" >&2
  echo "	at com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)" >&2
  exit 255
}

# The NullPointerException sendText hits when KeyCharacterMap.getEvents returns null.
null_events() {
  if [ "${SIM_INPUT-}" = app_process ]; then
    echo "java.lang.NullPointerException: Attempt to get length of null array" >&2
    echo "	at com.android.commands.input.Input\$InputText.sendText(Input.java:168)" >&2
    echo "	at com.android.commands.input.Input\$InputText.run(Input.java:140)" >&2
    echo "	at com.android.commands.input.Input.onRun(Input.java:107)" >&2
    echo "	at com.android.internal.os.BaseCommand.run(BaseCommand.java:56)" >&2
    exit 1
  fi
  printf '\nException occurred while executing '"'"'%s'"'"':\n' "$first" >&2
  echo "java.lang.NullPointerException: Attempt to get length of null array" >&2
  echo "	at com.android.server.input.InputShellCommand.sendText(InputShellCommand.java:196)" >&2
  echo "	at com.android.server.input.InputShellCommand.runText(InputShellCommand.java:172)" >&2
  exit 255
}

# getNextArgRequired: the next argument, or "Argument expected after "<previous>"".
prev=
need() {
  if [ "$1" -eq 0 ]; then illegal "Argument expected after \"$prev\""; fi
}

if [ $# -eq 0 ]; then
  # BaseCommand: usage on stdout; ShellCommand: onHelp on stdout. Both exit 0.
  usage
  exit 0
fi

case $1 in
  keyboard | mouse | joystick | touchnavigation | touchpad | trackball | dpad | stylus | gamepad | touchscreen)
    prev=$1
    shift
    need $#
    ;;
esac
if [ "$1" = -d ]; then
  prev=-d
  shift
  need $#
  prev=$1
  shift
  need $#
fi

cmd=$1
prev=$1
shift

# Float.parseFloat / Integer.parseInt; a NumberFormatException becomes "Error: Invalid arguments
# for command: <cmd>". Plain digits, what nearly every call passes, pass both rules without the
# two processes of the grep.
float() {
  need $#
  case $1 in
    '' | *[!0-9]*)
      if ! printf '%s' "$1" | grep -Eq '^[[:space:]]*[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)[[:space:]]*$'; then
        illegal "Error: Invalid arguments for command: $cmd"
      fi
      ;;
  esac
  prev=$1
}
integer() {
  case $1 in
    '' | *[!0-9]*)
      if ! printf '%s' "$1" | grep -Eq '^[+-]?[0-9]+$'; then
        illegal "Error: Invalid arguments for command: $cmd"
      fi
      ;;
  esac
}

case $cmd in
  text)
    need $#
    # Only printable ASCII (and tab/newline) is in the virtual key map. Text of printable ASCII
    # alone, the usual case, needs no tr (two processes) to say so.
    bad=
    case $1 in *[!\ -~]*) bad=$(printf '%s' "$1" | LC_ALL=C tr -d '\011\012\040-\176') ;; esac
    if [ -n "$bad" ]; then null_events; fi
    ;;
  tap | roll)
    float "$@"
    shift
    float "$@"
    # When a tap lands, in ns: what measures the gap between the taps of a double tap.
    if [ "$cmd" = tap ]; then date +%s%N >>"$S/tap_times"; fi
    ;;
  swipe | draganddrop)
    for _ in 1 2 3 4; do
      float "$@"
      shift
    done
    if [ $# -gt 0 ]; then integer "$1"; fi
    ;;
  keyevent | keycombination)
    need $#
    ;;
  motionevent)
    need $#
    shift
    float "$@"
    shift
    float "$@"
    ;;
  press) ;;
  *)
    if [ "${SIM_INPUT-}" = app_process ]; then illegal "Error: Unknown command: $cmd"; fi
    # ShellCommand.handleDefaultCommands prints this on stdout; onCommand still returns 0.
    echo "Unknown command: $cmd"
    ;;
esac
exit 0
