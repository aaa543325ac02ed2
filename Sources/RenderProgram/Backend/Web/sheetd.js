// <sheet-view>: the sheet sheetd publishes, drawn in a web page (sheet-render --backend web).
// The daemon decides everything: where the card is, what a touch did. This module draws the
// states it is sent, and sends back the page's touches (pointer events on the card, the dim and
// the edge the sheet takes) and keys, with the browser's event times.
// No markup is ever built from the daemon's words: every label is textContent.

const origin = new URL(".", import.meta.url);
const socketURL = new URL("socket", origin);
socketURL.protocol = origin.protocol === "https:" ? "wss:" : "ws:";

// The DOM's key codes the sheet takes, as the kernel numbers them.
const KEYS = { Escape: 1, Tab: 15, Enter: 28, ShiftLeft: 42, ShiftRight: 54, Space: 57, NumpadEnter: 96,
  Home: 102, ArrowUp: 103, PageUp: 104, ArrowLeft: 105, ArrowRight: 106, End: 107, ArrowDown: 108, PageDown: 109 };
const RIGHT_TO_LEFT = new Set(["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb"]);
const SLOTS = 10;

const style = new CSSStyleSheet();
style.replaceSync(`
:host { position: fixed; inset: 0; overflow: hidden; pointer-events: none; z-index: 2147483000;
  --card: #ffffff; --ink: rgba(0, 0, 0, 0.8); --ink-strong: #000000; --ink-soft: rgba(0, 0, 0, 0.55);
  --line: rgba(0, 0, 0, 0.12); --accent: #3584e4; --off: #cccccc; --dim: #000000; --radius: 28px; --scale: 1;
  font-family: system-ui, sans-serif; contain: strict; }
:host([hidden]) { display: none; }
.theme-dark { --card: #383838; --ink: #ffffff; --ink-strong: #ffffff; --ink-soft: rgba(255, 255, 255, 0.7);
  --line: rgba(255, 255, 255, 0.15); --off: #5e5e5e; }
.theme-high-contrast { --ink: #000000; --ink-soft: rgba(0, 0, 0, 0.7); --line: #000000; --off: #767676; }
.theme-high-contrast-dark { --card: #000000; --ink: #ffffff; --ink-strong: #ffffff; --ink-soft: rgba(255, 255, 255, 0.7);
  --line: #ffffff; --off: #8a8a8a; }
.sheet { position: absolute; inset: 0; visibility: hidden; }
.sheet.shown { visibility: visible; }
.dim { position: absolute; inset: 0; background: var(--dim); opacity: 0; will-change: opacity; }
.card { position: absolute; top: 0; left: 0; height: 100%; background: var(--card); color: var(--ink);
  border-radius: var(--radius) var(--radius) 0 0; will-change: transform; contain: layout;
  box-shadow: 0 -1px 8px rgba(0, 0, 0, 0.25); }
.theme-high-contrast .card, .theme-high-contrast-dark .card { outline: 2px solid var(--ink); }
.grabber { position: absolute; top: -13px; left: calc(50% - 30px); width: 60px; height: 5px; border-radius: 3px;
  background: rgba(255, 255, 255, 0.75); }
.bar { position: absolute; top: 0; left: 0; right: 0; display: flex; align-items: center; padding-inline: 20px 16px; }
.title { flex: 1; font-weight: 700; font-size: calc(20px * var(--scale)); color: var(--ink-strong);
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; margin: 0; }
.close { width: 30px; height: 30px; border-radius: 50%; background: rgba(128, 128, 128, 0.22); flex: none;
  position: relative; }
.close::before, .close::after { content: ""; position: absolute; left: 7px; top: 14px; width: 16px; height: 2px;
  background: var(--ink-strong); transform: rotate(45deg); }
.close::after { transform: rotate(-45deg); }
.list { position: absolute; left: 0; right: 0; bottom: 0; overflow: hidden; }
.rows { position: absolute; left: 0; right: 0; top: 0; will-change: transform; }
.header { position: absolute; left: 0; right: 0; display: flex; align-items: flex-end; padding: 0 20px 8px;
  box-sizing: border-box; font-size: calc(13px * var(--scale)); font-weight: 700; color: var(--ink-soft); }
.row { position: absolute; left: 0; right: 0; display: flex; align-items: center; gap: 16px; box-sizing: border-box;
  padding-inline: 20px; background: var(--card); }
.row::after { content: ""; position: absolute; bottom: 0; inset-inline: 20px 0; height: 1px; background: var(--line); }
.row.last::after { display: none; }
.row.disabled { opacity: 0.45; }
.row.lifted { z-index: 1; box-shadow: 0 2px 10px rgba(0, 0, 0, 0.3); border-radius: 8px; }
.row.focused { outline: 3px solid var(--accent); outline-offset: -3px; border-radius: 8px; }
.close.focused { outline: 3px solid var(--accent); outline-offset: 2px; }
.icon { width: 24px; height: 24px; flex: none; background: currentColor; -webkit-mask-size: contain; mask-size: contain;
  -webkit-mask-repeat: no-repeat; mask-repeat: no-repeat; -webkit-mask-position: center; mask-position: center; }
.text { flex: 1; min-width: 0; }
.label { font-size: calc(16px * var(--scale)); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.subtitle { font-size: calc(13px * var(--scale)); color: var(--ink-soft); white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; }
.value { color: var(--ink-soft); font-size: calc(16px * var(--scale)); }
.toggle { width: 44px; height: 24px; border-radius: 12px; background: var(--off); position: relative; flex: none; }
.toggle::after { content: ""; position: absolute; top: 3px; inset-inline-start: 3px; width: 18px; height: 18px;
  border-radius: 50%; background: #ffffff; }
.on > .toggle { background: var(--accent); }
.on > .toggle::after { inset-inline-start: 23px; }
.check { width: 20px; height: 12px; flex: none; border-left: 3px solid transparent;
  border-bottom: 3px solid transparent; transform: rotate(-45deg); margin-top: -6px; }
.on > .check { border-color: var(--accent); }
.chevron { width: 9px; height: 9px; flex: none; border-top: 2px solid var(--ink-soft); border-right: 2px solid var(--ink-soft);
  transform: rotate(45deg); }
:dir(rtl) .chevron, .card[dir="rtl"] .chevron { transform: rotate(-135deg); }
.hit { position: absolute; top: 0; left: 0; pointer-events: auto; touch-action: none; }
`);

/// Where each row lies from the list's top, as the daemon's ListLayout lays it out: a header
/// above the first row of each run of one named section, rows one or two lines high.
function layOut(items, list) {
  const rows = [];
  let y = 0;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    const previous = index > 0 ? items[index - 1] : null;
    const startsSection = !previous || (previous.section || "") !== (item.section || "");
    let header = null;
    if (startsSection && item.section) {
      header = y;
      y += list.headerHeight;
    }
    const height = item.subtitle ? list.twoLineItemHeight : list.itemHeight;
    rows.push({ item, top: y, height, header, startsSection });
    y += height;
  }
  return rows;
}

function element(tag, className, part) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (part) node.setAttribute("part", part);
  return node;
}

class SheetView extends HTMLElement {
  #socket = null;
  #retry = 0;
  #pending = null;
  #frame = 0;
  #state = null;
  #content = null;
  #rows = new Map();
  #drawn = {};
  #slots = new Map();
  #touched = false;

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    root.adoptedStyleSheets = [style];
    this.sheet = element("div", "sheet");
    this.dim = element("div", "dim", "dim");
    this.card = element("div", "card", "card");
    this.card.setAttribute("role", "dialog");
    this.card.setAttribute("aria-labelledby", "title");
    this.card.append(element("div", "grabber"));
    this.bar = element("div", "bar");
    this.titleNode = element("h2", "title", "title");
    this.titleNode.id = "title";
    this.closeNode = element("div", "close", "close");
    this.closeNode.setAttribute("role", "button");
    this.closeNode.setAttribute("aria-label", "Close");
    this.bar.append(this.titleNode, this.closeNode);
    this.list = element("div", "list");
    this.rowsNode = element("div", "rows");
    this.list.append(this.rowsNode);
    this.card.append(this.bar, this.list);
    // What takes the sheet's touches: the region the daemon says the sheet takes (the whole
    // screen for a modal sheet, the card for another, the bottom edge while it is closed).
    this.hit = element("div", "hit");
    this.sheet.append(this.dim, this.card);
    root.append(this.sheet, this.hit);
    for (const type of ["pointerdown", "pointermove", "pointerup", "pointercancel", "lostpointercapture"]) {
      this.hit.addEventListener(type, (event) => this.#pointer(event));
    }
    this.onKey = (event) => this.#key(event);
    this.onBlur = () => this.#send({ blur: true });
    this.onResize = () => this.#sendScreen();
  }

  connectedCallback() {
    window.addEventListener("keydown", this.onKey, true);
    window.addEventListener("keyup", this.onKey, true);
    window.addEventListener("blur", this.onBlur);
    window.addEventListener("resize", this.onResize);
    this.#connect();
  }

  disconnectedCallback() {
    window.removeEventListener("keydown", this.onKey, true);
    window.removeEventListener("keyup", this.onKey, true);
    window.removeEventListener("blur", this.onBlur);
    window.removeEventListener("resize", this.onResize);
    const socket = this.#socket;
    this.#socket = null;
    if (socket) socket.close();
  }

  /// The state last drawn and the content it shows (read only).
  get state() { return this.#state; }
  get content() { return this.#content; }

  #connect() {
    const socket = new WebSocket(socketURL);
    this.#socket = socket;
    socket.onopen = () => { this.#retry = 0; this.#sendScreen(); };
    socket.onmessage = (message) => this.#receive(message.data);
    socket.onclose = () => {
      if (this.#socket !== socket) return;
      // The renderer is away (restarting, or the page's origin is not allowed): try again,
      // less often the longer it stays away.
      this.#retry = Math.min(this.#retry + 1, 10);
      setTimeout(() => { if (this.#socket === socket) this.#connect(); }, 250 * this.#retry);
    };
  }

  #send(message) {
    if (this.#socket && this.#socket.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }

  #sendScreen() {
    this.#send({ screen: { width: Math.max(1, Math.round(window.innerWidth)), height: Math.max(1, Math.round(window.innerHeight)) } });
  }

  #receive(text) {
    let message;
    try { message = JSON.parse(text); } catch { return; }
    if (message.content) {
      this.#content = { content: message.content, sheet: message.sheet, revision: message.revision };
      this.#rows.clear();
      this.#drawn.content = null;
    } else if (message.state) {
      this.#pending = message.state;
      if (!this.#frame) this.#frame = requestAnimationFrame(() => this.#draw());
    } else if (message.events) {
      for (const event of message.events) {
        this.dispatchEvent(new CustomEvent("sheet-event", { detail: { ...event, sheet: message.sheet }, bubbles: true, composed: true }));
      }
    }
  }

  /// Draws the newest state, then says so: the renderer sends the next one after that.
  #draw() {
    this.#frame = 0;
    const state = this.#pending;
    this.#pending = null;
    if (!state) return;
    this.#apply(state);
    this.#state = state;
    this.#send({ drawn: true });
    this.dispatchEvent(new CustomEvent("sheet-state", { detail: state, bubbles: true, composed: true }));
  }

  /// Changes only what this state changed; while a finger drags, that is the card's transform,
  /// the dim's opacity and the list's scroll: no layout, no style of the list recalculated.
  #apply(state) {
    const drawn = this.#drawn;
    const shown = !(state.state === "resting" && state.detent === "hidden");
    if (drawn.shown !== shown) {
      this.sheet.classList.toggle("shown", shown);
      if (!shown) this.#touched = false;
      drawn.shown = shown;
    }
    const appearance = JSON.stringify(state.appearance);
    if (drawn.appearance !== appearance) {
      const look = state.appearance || {};
      this.sheet.className = "sheet" + (shown ? " shown" : "") + " theme-" + (look.theme === "auto"
        ? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light") : (look.theme || "light"));
      this.style.setProperty("--accent", look.accent || "#3584e4");
      this.style.setProperty("--scale", String(look.textScale || 1));
      this.style.setProperty("--radius", (look.cornerRadius ?? 28) + "px");
      if (look.card) this.sheet.style.setProperty("--card", look.card); else this.sheet.style.removeProperty("--card");
      if (look.dim) this.sheet.style.setProperty("--dim", look.dim); else this.sheet.style.removeProperty("--dim");
      if (look.font) this.style.fontFamily = look.font; else this.style.removeProperty("font-family");
      drawn.appearance = appearance;
    }
    const card = state.card || { x: 0, width: state.screen.width };
    if (drawn.cardX !== card.x || drawn.cardWidth !== card.width || drawn.height !== state.screen.height) {
      this.card.style.left = card.x + "px";
      this.card.style.width = card.width + "px";
      drawn.cardX = card.x;
      drawn.cardWidth = card.width;
      drawn.height = state.screen.height;
    }
    if (drawn.top !== state.top) {
      this.card.style.transform = `translate3d(0, ${state.top}px, 0)`;
      drawn.top = state.top;
    }
    if (drawn.dim !== state.dim) {
      this.dim.style.opacity = String(state.dim);
      drawn.dim = state.dim;
    }
    const modal = state.presentation ? state.presentation.modal : true;
    if (drawn.modal !== modal) {
      if (modal) this.card.setAttribute("aria-modal", "true"); else this.card.removeAttribute("aria-modal");
      drawn.modal = modal;
    }
    this.#region(state);
    this.#list(state);
    this.#focus(state);
  }

  #region(state) {
    const region = state.region;
    const drawn = this.#drawn;
    // A finger that began on the sheet keeps its element until it lifts, wherever the sheet went.
    if (this.#slots.size > 0) return;
    const key = region ? `${region.x},${region.width},${region.height + region.y >= state.screen.height ? "end" : region.height}` : "none";
    if (drawn.regionKey !== key) {
      if (region) {
        this.hit.style.display = "";
        this.hit.style.width = region.width + "px";
        this.hit.style.height = (region.y + region.height >= state.screen.height ? state.screen.height : region.height) + "px";
      } else {
        this.hit.style.display = "none";
      }
      drawn.regionKey = key;
    }
    if (region && (drawn.regionX !== region.x || drawn.regionY !== region.y)) {
      this.hit.style.transform = `translate3d(${region.x}px, ${region.y}px, 0)`;
      drawn.regionX = region.x;
      drawn.regionY = region.y;
    }
  }

  #list(state) {
    const list = state.list;
    const drawn = this.#drawn;
    const content = this.#content && this.#content.sheet === (state.sheet ?? null) ? this.#content.content : null;
    if (drawn.content !== content || drawn.titleBar !== (list && list.titleBar)) {
      this.#build(content, list);
      drawn.content = content;
      drawn.titleBar = list && list.titleBar;
    }
    if (!list) return;
    if (drawn.scroll !== list.scroll) {
      this.rowsNode.style.transform = `translate3d(0, ${-list.scroll}px, 0)`;
      drawn.scroll = list.scroll;
    }
    const lifted = list.lifted ? list.lifted.item : null;
    if (drawn.lifted && drawn.lifted !== lifted) {
      const row = this.#rows.get(drawn.lifted);
      if (row) { row.node.classList.remove("lifted"); row.node.style.transform = ""; }
    }
    if (lifted) {
      const row = this.#rows.get(lifted);
      if (row) {
        row.node.classList.add("lifted");
        row.node.style.transform = `translate3d(0, ${list.lifted.offset}px, 0) scale(${list.lifted.scale})`;
      }
    }
    drawn.lifted = lifted;
  }

  /// The content, built once per revision: the title, the sections as lists, the rows.
  #build(content, list) {
    this.rowsNode.replaceChildren();
    this.#rows.clear();
    this.titleNode.textContent = content ? content.title : "";
    const language = content && content.lang ? content.lang : "";
    if (language) this.card.setAttribute("lang", language); else this.card.removeAttribute("lang");
    this.card.setAttribute("dir", RIGHT_TO_LEFT.has(language.split("-")[0].toLowerCase()) ? "rtl" : "ltr");
    if (!list) return;
    this.bar.style.height = list.titleBar + "px";
    this.list.style.top = list.titleBar + "px";
    if (!content) return;
    let section = null;
    const laid = layOut(content.items, list);
    laid.forEach((place, index) => {
      const item = place.item;
      if (place.startsSection) {
        section = element("div", "section");
        section.setAttribute("role", "list");
        if (item.section) {
          section.setAttribute("aria-label", item.section);
          const header = element("div", "header");
          header.setAttribute("aria-hidden", "true");
          header.textContent = item.section;
          header.style.top = place.header + "px";
          header.style.height = list.headerHeight + "px";
          section.append(header);
        }
        this.rowsNode.append(section);
      }
      const row = element("div", "row", "item");
      row.setAttribute("role", "listitem");
      row.style.top = place.top + "px";
      row.style.height = place.height + "px";
      const next = laid[index + 1];
      if (!next || next.startsSection) row.classList.add("last");
      const control = element("div", "text");
      const accessory = item.accessory || "none";
      const role = accessory === "toggle" ? "switch" : accessory === "check" ? "checkbox" : "button";
      control.setAttribute("role", role);
      if (role !== "button") control.setAttribute("aria-checked", item.on ? "true" : "false");
      if (item.disabled) { control.setAttribute("aria-disabled", "true"); row.classList.add("disabled"); }
      const label = element("div", "label");
      label.textContent = item.label;
      control.append(label);
      if (item.subtitle) {
        const subtitle = element("div", "subtitle");
        subtitle.textContent = item.subtitle;
        control.append(subtitle);
      }
      const parts = ["item", accessory];
      if (item.on) { parts.push("on"); row.classList.add("on"); }
      if (item.disabled) parts.push("disabled");
      row.setAttribute("part", parts.join(" "));
      if (item.icon) {
        const icon = element("div", "icon");
        icon.setAttribute("aria-hidden", "true");
        const url = `url("${new URL("icons/" + encodeURIComponent(item.icon) + ".svg", origin)}")`;
        icon.style.webkitMaskImage = url;
        icon.style.maskImage = url;
        row.append(icon);
      }
      row.append(control);
      if (accessory === "toggle") row.append(element("div", "toggle"));
      else if (accessory === "check") row.append(element("div", "check"));
      else if (accessory === "chevron") row.append(element("div", "chevron"));
      else if (accessory === "value") {
        const value = element("div", "value");
        value.textContent = item.value || "";
        row.append(value);
      }
      section.append(row);
      this.#rows.set(item.id, { node: row });
    });
    this.#drawn.scroll = null;
    this.#drawn.lifted = null;
    this.#drawn.focus = null;
  }

  #focus(state) {
    const focus = state.focusVisible ? state.focus : null;
    const drawn = this.#drawn;
    if (drawn.focus === focus) return;
    const node = (id) => id === "close" ? this.closeNode : (this.#rows.get(id) || {}).node;
    const before = drawn.focus && node(drawn.focus);
    if (before) before.classList.remove("focused");
    const after = focus && node(focus);
    if (after) after.classList.add("focused");
    drawn.focus = focus;
  }

  /// A pointer on the sheet's region: a finger to the daemon, in this page's CSS pixels, with
  /// the browser's time of the event.
  #pointer(event) {
    let slot = this.#slots.get(event.pointerId);
    let phase;
    if (event.type === "pointerdown") {
      if (slot !== undefined) return;
      const used = new Set(this.#slots.values());
      slot = [...Array(SLOTS).keys()].find((candidate) => !used.has(candidate));
      if (slot === undefined) return;
      this.#slots.set(event.pointerId, slot);
      this.hit.setPointerCapture(event.pointerId);
      this.#touched = true;
      phase = "down";
    } else if (slot === undefined) {
      return;
    } else if (event.type === "pointermove") {
      phase = "move";
    } else {
      // Up, cancelled, or the capture lost without either: the daemon hears the finger end.
      this.#slots.delete(event.pointerId);
      phase = event.type === "pointerup" ? "up" : "cancel";
      if (this.#slots.size === 0 && this.#state) this.#region(this.#state);
    }
    event.preventDefault();
    const moves = phase === "move" && event.getCoalescedEvents ? event.getCoalescedEvents() : [];
    for (const each of moves.length ? moves : [event]) {
      this.#send({ touch: { time: each.timeStamp, contacts: [{ slot, phase, x: each.clientX, y: each.clientY }] } });
    }
  }

  /// Keys go to the daemon while the sheet holds the focus: open and modal, or touched since it opened.
  #key(event) {
    const code = KEYS[event.code];
    const state = this.#state;
    if (code === undefined || !state || !this.#drawn.shown) return;
    const modal = state.presentation ? state.presentation.modal : true;
    if (!modal && !this.#touched) return;
    event.preventDefault();
    event.stopPropagation();
    if (event.repeat) return;
    this.#send({ key: { code, pressed: event.type === "keydown" } });
  }
}

customElements.define("sheet-view", SheetView);
export { SheetView };
