// The tool list: the only verbs phone-eye exposes, in the order tools/list shows them.
// The README's tool table is generated from this list (scripts/readme_tools.ts).

import { phoneDevices } from "./phone_devices.ts";
import { phoneIntent } from "./phone_intent.ts";
import { phoneKey } from "./phone_key.ts";
import { phoneLook } from "./phone_look.ts";
import { phoneShot } from "./phone_shot.ts";
import { phoneSwipe } from "./phone_swipe.ts";
import { phoneTap } from "./phone_tap.ts";
import { phoneType } from "./phone_type.ts";
import type { Tool } from "./tool.ts";

export const TOOLS: readonly Tool[] = [
  phoneLook,
  phoneTap,
  phoneSwipe,
  phoneType,
  phoneShot,
  phoneKey,
  phoneIntent,
  phoneDevices,
];
