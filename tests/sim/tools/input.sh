#!/bin/sh
# Fake Android `input`: records argv; the sim applies taps, swipes, text and keys afterwards.
# Modelled on Android 12+'s `cmd input` (InputShellCommand), whose exceptions the shell-command
# base class prints as "Exception occurred while executing '<cmd>':" and a stack trace, with exit
# status 255 (res stays -1):
# https://github.com/aosp-mirror/platform_frameworks_base/blob/017cf35b7fa9d3a164cb6e2f067ca7effae9b370/services/core/java/com/android/server/input/InputShellCommand.java
# https://android.googlesource.com/platform/frameworks/libs/modules-utils/+/e682916114ee32ead73dfd71545ce02340ed52d4/java/com/android/modules/utils/BasicShellCommandHandler.java
SIM_TOOL=input
. "$SIM_BIN/sim_lib.sh"

usage() {
  cat >&2 <<'USAGE'
Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination <key code 1> <key code 2> ... (Default: keyboard)
USAGE
}

case ${1-} in
  keyboard | mouse | joystick | touchnavigation | touchpad | trackball | dpad | stylus | gamepad | touchscreen | rotaryencoder) shift ;;
esac
if [ "${1-}" = -d ]; then
  shift
  [ $# -gt 0 ] && shift
fi

numbers() {
  for n in "$@"; do
    case $n in
      '' | *[!0-9.-]*)
        echo "Exception occurred while executing '$cmd':" >&2
        echo "java.lang.NumberFormatException: For input string: \"$n\"" >&2
        exit 255
        ;;
    esac
  done
}

cmd=${1-}
[ $# -gt 0 ] && shift
case $cmd in
  text)
    if [ $# -lt 1 ]; then echo "Error: Invalid arguments for command: text" >&2; usage; exit 1; fi
    # The virtual key map has no key for non-ASCII characters: getEvents() returns null, and
    # sendText's loop over it throws (ANDROID.md, "input").
    bad=$(printf '%s' "$1" | LC_ALL=C tr -d '\011\012\040-\176')
    if [ -n "$bad" ]; then
      echo "Exception occurred while executing 'text':" >&2
      echo "java.lang.NullPointerException: Attempt to get length of null array" >&2
      exit 255
    fi
    ;;
  tap)
    if [ $# -lt 2 ]; then echo "Error: Invalid arguments for command: tap" >&2; usage; exit 1; fi
    numbers "$1" "$2"
    ;;
  swipe | draganddrop)
    if [ $# -lt 4 ]; then echo "Error: Invalid arguments for command: $cmd" >&2; usage; exit 1; fi
    numbers "$@"
    ;;
  keyevent | keycombination)
    if [ $# -lt 1 ]; then echo "Error: Invalid arguments for command: $cmd" >&2; usage; exit 1; fi
    ;;
  press | roll | motionevent | scroll) ;;
  '') usage; exit 1 ;;
  *) echo "Error: Unknown command: $cmd" >&2; usage; exit 1 ;;
esac
exit 0
