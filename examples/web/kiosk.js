// What the sheet did, said on the page: <sheet-view> fires `sheet-event` for each event the
// daemon reports (docs/protocol.md lists them) and `sheet-state` for each state it draws. The
// program that owns the content answers the same events over the socket; the page only says them.
const said = document.getElementById("said");
const sayings = {
  "item-tapped": ({ item }) => `You touched ${item}.`,
  "item-toggled": ({ item, on }) => `${item} is ${on ? "on" : "off"}.`,
  "reorder-ended": ({ order }) => `New order: ${(order ?? []).join(", ")}.`,
  "dismiss-attempted": () => "The sheet stays: its program keeps it open.",
};
document.querySelector("sheet-view").addEventListener("sheet-event", (event) => {
  const saying = sayings[event.detail.event];
  if (saying) said.textContent = saying(event.detail);
});
