// Plain geometry every layer speaks: a screen's or image's size, a rectangle's bounds, in pixels.
// Types only: the adb layer reads a size from `wm size`, the screen layer bounds from the UI tree.

/** A screen's or image's extent in pixels: the one size type (Device.screenSize returns it). */
export interface Size {
  width: number;
  height: number;
}

/** A rectangle in device pixels, x2/y2 exclusive, as Android's Rect. */
export interface Bounds {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}
