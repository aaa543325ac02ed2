#!/usr/bin/python3
"""Checks what the as-installed scenario (guest-installed) left: systemd was PID 1 and none of
the package's units failed; sysusers made the package's users and groups; a touchscreen plugged
after boot started sheetd.service, which took it; the appliance recipe's screenshots show the
state (the card and its rows at half), before and after `systemctl restart sheetd`, with the
program's content kept across it; the program answered every tap; under labwc, the card over
the fullscreen app and the touchscreen left to the compositor; the web renderer's unit
served the kiosk user and refused nobody. The daemon's and the renderers' journal hold no
error.

Usage: check-installed.py RUN-FOLDER SHEETCTL
"""
import json
import re

from checks import check, check_shot, conclude, json_lines, text

check(text("result").strip() == "DONE", f"the guest ran every step (result: {text('result').strip() or 'none'})")
check(text("system-state.txt").strip() in ("running", "degraded"),
      f"the system came up under systemd ({text('system-state.txt').strip() or 'no state'})")
ours = re.compile(r"^(sheetd|sheet-render)")
failed = [line.split()[0] for line in text("failed-units.txt").splitlines() if line.strip() and not line.startswith("0 ")]
check(not [unit for unit in failed if ours.match(unit)], f"none of the package's units failed (failed: {failed or 'none'})")
users = [line.split(":")[0] for line in text("users.txt").splitlines()]
groups = [line.split(":")[0] for line in text("groups.txt").splitlines()]
check(users == ["sheetd", "sheet-render"] and groups == ["sheetd", "sheetd-input", "sheetd-render"],
      f"sysusers made the users and groups of docs/install.md (users {users}, groups {groups})")
node = text("first.node").strip()
check(any(device.get("node") == node and device.get("used") for device in json_lines("devices.json")),
      f"the touchscreen plugged after boot ({node}) was taken by the daemon udev started")

for name in ["appliance", "restarted"]:
    check_shot(name, "half")
# Under labwc, over the fullscreen app: the dim over foot's background (#242424), the card where
# the state puts it.
check_shot("labwc", "half", over=0x24)
# In the browser kiosk, over the page: the dim over the page's background (#1c3f6e).
check_shot("browser", "half", over=(0x1c, 0x3f, 0x6e))
for kiosk_name, devices in [("labwc", "labwc-devices.json"), ("the browser", "browser-devices.json")]:
    left = [device for device in json_lines(devices) if "left to the compositor" in (device.get("reason") or "")]
    check(any(device.get("node") == node for device in left),
          f"under {kiosk_name} the daemon left the touchscreen ({node}) to the compositor ({left})")
content = json.loads(text("restarted.content.json") or "{}")
labels = [item.get("label") for item in content.get("items", [])]
check(labels[:2] == ["✓ Wi-Fi", "✓ Bluetooth"], f"the program's content kept across the restart (rows: {labels})")
said = text("recipe-appliance.log").splitlines()
check("content set, sheet presented" in said, "the program set its content and presented the sheet")
# Its answers to the taps, in order: two under the DRM renderer, one after the restart, one
# under labwc, one in the browser's page.
answers = [line for line in said if re.fullmatch(r"(wifi|bluetooth|location) (on|off)", line)]
check(answers == ["wifi on", "bluetooth on", "location on", "wifi off", "wifi on"], f"the program answered each tap ({answers})")
check(not [line for line in said if "Traceback" in line or "Error" in line], "the program raised nothing")

kiosk = json.loads(text("web-kiosk.json") or "{}")
nobody = json.loads(text("web-nobody.json") or "{}")
check(kiosk.get("module") == 200 and kiosk.get("upgrade") == 101 and kiosk.get("detent") is not None,
      f"the web renderer's unit served the kiosk user the module and the sheet ({kiosk})")
check(nobody.get("module") == 403 and nobody.get("upgrade") == 403 and nobody.get("detent") is None,
      f"another local user (nobody) got 403 and nothing of the sheet ({nobody})")

journal = text("journal.txt").splitlines()
ours_said = [line for line in journal if re.search(r" (sheetd|sheet-render)\[\d+\]: ", line)]
# A D-Bus error's name quoted in a note (the session without an accessibility bus or a settings
# portal: `GDBus.Error:org.freedesktop.DBus.Error.ServiceUnknown`) is no error of ours.
errors = [line for line in ours_said
          if re.search(r"\b(error|fatal|crash|denied)\b", re.sub(r"\S*\bError[.:]\S*", "", line), re.I)]
check(ours_said and not errors, f"the daemon's and the renderers' journal hold no error ({len(ours_said)} lines; e.g. {errors[:2]})")
refused = [line for line in ours_said if "uid 65534 refused" in line]
check(len(refused) == 1, f"the web renderer said once that uid 65534 was refused ({len(refused)} times)")
conclude()
