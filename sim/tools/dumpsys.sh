#!/bin/sh
# Fake Android `dumpsys SERVICE ...` for the services that reveal the focused app, the screen and
# the keyboard. The texts are written by the sim (sim/dumpsys.ts, which shows their lines)
# into screen.sh; arguments after the service (`dumpsys window windows`) are accepted and print
# the same.
SIM_TOOL=dumpsys
. "$SIM_BIN/sim_lib.sh"
. "$S/screen.sh"

case ${1-} in
  activity)
    case ${2-} in
      broadcasts | b)
        # ActivityManagerService.dumpBroadcastsLocked, registered receivers only (optionally of
        # one package, the third argument), each filter dumped by IntentFilter.dump.
        echo "ACTIVITY MANAGER BROADCAST STATE (dumpsys activity broadcasts)"
        case ${3-com.android.adbkeyboard} in
          com.android.adbkeyboard)
            if sim_keyboard_listening; then
              echo "  Registered Receivers:"
              echo "  * ReceiverList{5d1c0a2 4242 com.android.adbkeyboard/10187/u0 remote:8e3f1b9}"
              echo "    app=4242:com.android.adbkeyboard/u0a187 pid=4242 uid=10187 user=0"
              echo "    Filter #0: BroadcastFilter{1f0c2d3}"
              for a in ADB_INPUT_TEXT ADB_INPUT_CHARS ADB_INPUT_CODE ADB_INPUT_MCODE ADB_EDITOR_CODE ADB_INPUT_B64; do
                echo "      Action: \"$a\""
              done
            fi
            ;;
        esac
        ;;
      *) printf '%s' "$sim_dumpsys_activity" ;;
    esac
    ;;
  window) printf '%s' "$sim_dumpsys_window" ;;
  display) printf '%s' "$sim_dumpsys_display" ;;
  input) printf '%s' "$sim_dumpsys_input" ;;
  power) printf '%s' "$sim_dumpsys_power" ;;
  input_method)
    echo "Current Input Method Manager state:"
    sim_slurp "$S/ime_selected"
    echo "  mCurMethodId=$sim_text"
    printf '%s' "$sim_dumpsys_input_method"
    ;;
  '') echo "Currently running services:"; for s in activity display input input_method power window; do echo "  $s"; done ;;
  *) echo "Can't find service: $1" >&2 ;;
esac
