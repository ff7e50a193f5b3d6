/**
 * blessed's Screen widget on its own: ui/screen.ts loads blessed/lib/widgets/screen.js instead of the
 * package's main module, which loads all 34 widgets (images, video, forms, ...) the screen never
 * uses. @types/blessed declares only the main module; this is the part of it that file exports.
 */
declare module 'blessed/lib/widgets/screen.js' {
  import type { Widgets } from 'blessed';
  /** blessed.screen: a function that constructs with or without `new`. */
  const Screen: { (options: Widgets.IScreenOptions): Widgets.Screen; prototype: Record<string, unknown> };
  export default Screen;
}
