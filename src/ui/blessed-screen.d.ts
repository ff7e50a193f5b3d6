/**
 * blessed's Screen widget on its own: ui/screen.ts loads blessed/lib/widgets/screen.js instead of the
 * package's main module, which loads all 34 widgets (images, video, forms, ...) the screen never
 * uses. @types/blessed declares only the main module; these are the parts of the two files
 * ui/screen.ts uses (the Screen function, Tput's compile step, which it makes lazy, and its setup,
 * which it points at blessed's own xterm-256color).
 */
declare module 'blessed/lib/widgets/screen.js' {
  import type { Widgets } from 'blessed';
  /** blessed.screen: a function that constructs with or without `new`. */
  const Screen: { (options: Widgets.IScreenOptions): Widgets.Screen; prototype: Record<string, unknown> };
  export default Screen;
}

declare module 'blessed/lib/tput.js' {
  /** blessed's terminfo reader; only the prototype's compile step is used here. */
  const Tput: {
    new (options: { terminal: string; extended?: boolean }): { info: { strings: Record<string, unknown> }; methods: Record<string, unknown> };
    prototype: Record<string | symbol, unknown> & {
      _compile: (this: { options: { stringify?: boolean } }, info: unknown, key: string, str: unknown) => unknown;
      /** Reads the terminal's description (terminfo or termcap), falling back to blessed's own copies. */
      setup(): unknown;
    };
  };
  export default Tput;
}
