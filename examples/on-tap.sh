#!/bin/sh
# A shell script's sheet that answers: sheetctl open runs this at each tap
#   sheetctl open --title Ticket --item ok=OK --on-tap examples/on-tap.sh
# with the item's id in SHEETD_ITEM (and as $1 of the --on-tap command line); the content
# it prints (YAML here, JSON works too) becomes the sheet's. Printing nothing leaves it.
case "${1:-$SHEETD_ITEM}" in
    ok) printf 'title: Ticket printed\nitems:\n  - {id: again, label: Print another}\n  - {id: done, label: Done}\n' ;;
    again) printf 'title: Ticket\nitems:\n  - {id: ok, label: OK}\n' ;;
esac
