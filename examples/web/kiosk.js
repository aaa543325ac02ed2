// What the sheet did, said on the page: <sheet-view> fires `sheet-event` for each event the
// daemon reports (a tap on an item, a reorder) and `sheet-state` for each state it draws.
const said = document.getElementById("said");
document.querySelector("sheet-view").addEventListener("sheet-event", (event) => {
  const { event: kind, item } = event.detail;
  if (kind === "item-tapped") said.textContent = `You touched ${item}.`;
});
