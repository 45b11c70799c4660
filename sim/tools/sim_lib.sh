# Shared by the sim's fake Android tools (copied next to them by sim/tools.ts).
# Records argv for the sim, then gives the tool the phone's paths and state files.
# shellcheck shell=sh

# One record per call: command id, argc, tool, argv, each NUL-terminated, in one write.
if [ -z "${SIM_NORECORD-}" ]; then
  printf '%s\0' "${SIM_CMD_ID:-0}" "$#" "$SIM_TOOL" "$@" >>"$SIM_STATE/calls.log"
fi

# The tools' own helpers are the host's real ones, never our fakes.
PATH=/usr/bin:/bin
export PATH
S=$SIM_STATE

# An event the sim applies after the command, e.g. an activity the fake am resolved.
sim_event() {
  sim_n=$(($# - 1))
  printf '%s\0' "${SIM_CMD_ID:-0}" "$sim_n" "$@" >>"$S/calls.log"
}

# Device path -> file under the sim's root, in $P. /sdcard is /storage/emulated/0 on Android.
sim_map() {
  case $1 in
    /sdcard | /sdcard/* | /data/local/tmp | /data/local/tmp/*) P=$SIM_ROOT$1 ;;
    /storage/emulated/0 | /storage/emulated/0/*) P=$SIM_ROOT/sdcard${1#/storage/emulated/0} ;;
    /storage/self/primary | /storage/self/primary/*) P=$SIM_ROOT/sdcard${1#/storage/self/primary} ;;
    *) P=$1 ;;
  esac
}

# Runs a real host tool on mapped paths, showing device paths (not host paths) in its messages.
# $1 = tool, $2 = 1 to rewrite stdout too (ls prints the paths it was given).
sim_run_mapped() {
  sim_tool=$1
  sim_rewrite_out=$2
  shift 2
  sim_count=$#
  while [ "$sim_count" -gt 0 ]; do
    sim_map "$1"
    shift
    set -- "$@" "$P"
    sim_count=$((sim_count - 1))
  done
  if [ "$sim_rewrite_out" = 1 ]; then
    sim_err=$S/err.$$
    "$sim_tool" "$@" >"$S/out.$$" 2>"$sim_err"
    sim_rc=$?
    sed "s|$SIM_ROOT/sdcard|/sdcard|g; s|$SIM_ROOT||g" "$S/out.$$"
    rm -f "$S/out.$$"
    sed "s|$SIM_ROOT||g" "$sim_err" >&2
    rm -f "$sim_err"
    return "$sim_rc"
  fi
  # Its messages (each a line) caught by a command substitution, stdout going straight out: no
  # file to sed and remove, and no sed at all when it printed none (the usual `cat`).
  { sim_errs=$("$sim_tool" "$@" 2>&1 >&3 3>&-); sim_rc=$?; } 3>&1
  if [ -n "$sim_errs" ]; then printf '%s\n' "$sim_errs" | sed "s|$SIM_ROOT||g" >&2; fi
  return "$sim_rc"
}

# `am start`'s errors: on stderr with shell_v2 (Android 7+), where ActivityManagerShellCommand
# prints them to its error writer and still returns 0 up to Android 14, 1 in Android 15's source
# ($SIM_AM_ERROR_EXIT, from sim/android.ts; docs/android.md, am start). The old `am` of the
# legacy-shell phone printed them on stdout and exited 0.
sim_fail() {
  if [ "${SIM_MODERN-}" = 1 ]; then
    printf '%s\n' "$@" >&2
    exit "${SIM_AM_ERROR_EXIT:-0}"
  fi
  printf '%s\n' "$@"
  exit 0
}

# ADB Keyboard's broadcast receiver exists only while it is the selected input method and its
# keyboard view is up, i.e. a text field has focus (it registers in onCreateInputView:
# https://github.com/senzhk/ADBKeyBoard/blob/3e1682533bef3b4cf686eab9d3337634ccbb4bb9/keyboardservice/src/main/java/com/android/adbkeyboard/AdbIME.java).
# $sim_text_focus is the sim's, from screen.sh.
sim_keyboard_listening() {
  sim_slurp "$S/ime_selected" 2>/dev/null
  [ "$sim_text" = com.android.adbkeyboard/.AdbIME ] && . "$S/screen.sh" && [ "$sim_text_focus" = 1 ]
}

# What "$(cat FILE)" gives (every line, trailing newlines dropped; "" when FILE cannot be read),
# into $sim_text, for the small text files of the state folder (no NUL byte in them): builtins
# only, where the command substitution costs a fork and an exec (milliseconds of CPU each).
sim_nl='
'
sim_slurp() {
  sim_text= sim_line=
  while IFS= read -r sim_line; do sim_text=$sim_text$sim_line$sim_nl; done <"$1"
  sim_text=$sim_text$sim_line
  while [ "${sim_text%"$sim_nl"}" != "$sim_text" ]; do sim_text=${sim_text%"$sim_nl"}; done
}
