/**
 * Whose scroll is this? The view's scroll events carry no cause, so the view tells the user's
 * scrolls (reported to the editor) from its own (following the editor, a selected box, zoom) by
 * what came just before them. Pure (a clock is passed in) so the rules are tested without a DOM.
 *
 * The rules, in order:
 *  - a scroll during a self-scroll window (`selfScroll`) is the view's own;
 *  - a scroll while a pointer is down, or within USER_INPUT_MS of the user's last input (wheel,
 *    key, touch, pointer), is the user's;
 *  - a scroll within MOMENTUM_MS of the previous scroll that was the user's is the user's too: a
 *    wheel's smooth scroll (or a fling) goes on animating after its last input, and on a busy
 *    machine its last frames land more than USER_INPUT_MS after that input. Without this rule the
 *    view's final position was never reported and the editor stopped short (seen in CI: the view
 *    settled at page 19, the editor at the page of the last report inside the input window).
 *  - when the scroll ends (the browser's `scrollend`: the smooth scroll or fling has finished),
 *    a scroll that was the user's at any point since the last end is reported where it stopped,
 *    however long its frames took: on a loaded machine a frame can come later than MOMENTUM_MS
 *    after the one before, and the view stopped pages past the last report (CI again: view at
 *    one page, editor never there).
 */

/** A scroll within this long of the user's last input in the view counts as the user's. */
export const USER_INPUT_MS = 1000;
/** A scroll within this long of the user's previous scroll continues it (smooth scroll, fling). */
export const MOMENTUM_MS = 400;

export class ScrollAttribution {
  private lastInput = -Infinity;
  private pointerDown = false;
  private selfUntil = 0;
  private lastUserScroll = -Infinity;
  /** Some scroll since the last scroll end was the user's. */
  private usersSinceEnd = false;

  constructor(private readonly now: () => number) {}

  /** The user touched the view (wheel, key, touch, pointer). */
  input(): void {
    this.lastInput = this.now();
  }

  pointer(down: boolean): void {
    this.pointerDown = down;
    this.input();
  }

  /** The view is about to scroll on its own for up to `ms`: its scrolls are not the user's. */
  selfScroll(ms: number): void {
    this.selfUntil = Math.max(this.selfUntil, this.now() + ms);
    this.lastUserScroll = -Infinity; // a self-scroll ends the user's scroll, momentum included
    this.usersSinceEnd = false;
  }

  /** The view moved by itself at once (a follow): the user's scroll, if any, has ended. */
  interrupted(): void {
    this.lastUserScroll = -Infinity;
    this.usersSinceEnd = false;
  }

  /** The scroll ended (`scrollend`): true when where it stopped is the user's (and should be reported). */
  ended(): boolean {
    const users = this.usersSinceEnd && this.now() >= this.selfUntil;
    this.usersSinceEnd = false;
    return users;
  }

  /** A scroll event happened now: true when it is the user's (and should be reported). */
  isUsers(): boolean {
    const now = this.now();
    if (now < this.selfUntil) return false;
    const users = this.pointerDown || now - this.lastInput <= USER_INPUT_MS || now - this.lastUserScroll <= MOMENTUM_MS;
    this.lastUserScroll = users ? now : -Infinity;
    if (users) this.usersSinceEnd = true;
    return users;
  }
}
