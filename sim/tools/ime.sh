#!/bin/sh
# Fake Android `ime list [-a] [-s] | enable ID | disable ID | set ID`, over the sim's input-method
# state files: ime_installed and ime_enabled (one id per line) and ime_selected (the id, or
# "null"). The messages are InputMethodManagerService's shell command's (docs/android.md,
# ADB Keyboard and ime): an id the phone does not know exits 0 and says so on stderr only. `ime set` of an
# installed but disabled id is refused the same way, as the real service refuses to switch to a
# method that is not enabled. Ids listed in fault_ime_unknown (sim/faults.ts) answer as
# unknown, as after an uninstall between phone-eye's list and its switch.
SIM_TOOL=ime
. "$SIM_BIN/sim_lib.sh"

has() { grep -qxF -- "$2" "$S/$1" 2>/dev/null; }
known() { has ime_installed "$1" && ! has fault_ime_unknown "$1"; }
user="for user #0"

sub=${1-}
[ $# -gt 0 ] && shift
case $sub in
  list)
    all=0 short=0
    for a in "$@"; do
      case $a in -a) all=1 ;; -s) short=1 ;; -as | -sa) all=1 short=1 ;; esac
    done
    list=ime_enabled
    [ $all = 1 ] && list=ime_installed
    while IFS= read -r id; do
      [ -n "$id" ] || continue
      if [ $short = 1 ]; then
        printf '%s\n' "$id"
      else
        printf '%s:\n  mId=%s mSettingsActivityName=null\n' "$id" "$id"
      fi
    done <"$S/$list"
    ;;
  enable)
    id=${1-}
    if ! known "$id"; then
      echo "Unknown input method $id cannot be enabled $user" >&2
    elif has ime_enabled "$id"; then
      echo "Input method $id: already enabled $user"
    else
      printf '%s\n' "$id" >>"$S/ime_enabled"
      echo "Input method $id: now enabled $user"
    fi
    ;;
  disable)
    id=${1-}
    if ! known "$id"; then
      echo "Unknown input method $id cannot be disabled $user" >&2
    elif ! has ime_enabled "$id"; then
      echo "Input method $id: already disabled $user"
    else
      grep -vxF -- "$id" "$S/ime_enabled" >"$S/ime_enabled.$$"
      mv "$S/ime_enabled.$$" "$S/ime_enabled"
      # Disabling the selected method makes the system pick another enabled one.
      if [ "$(cat "$S/ime_selected")" = "$id" ]; then
        next=$(head -n 1 "$S/ime_enabled")
        printf '%s\n' "${next:-null}" >"$S/ime_selected"
      fi
      echo "Input method $id: now disabled $user"
    fi
    ;;
  set)
    id=${1-}
    if known "$id" && has ime_enabled "$id"; then
      printf '%s\n' "$id" >"$S/ime_selected"
      echo "Input method $id selected $user"
    else
      echo "Unknown input method $id cannot be selected $user" >&2
    fi
    ;;
  *)
    echo "ime <command>:" >&2
    echo "  list [-a] [-s]" >&2
    exit 255
    ;;
esac
exit 0
