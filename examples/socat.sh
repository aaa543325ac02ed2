#!/bin/sh
# io.sheetd.Sheet from a shell with socat: a varlink call is one JSON object ended by a NUL
# byte, and so is each reply. SHEETD_SOCKET names the socket (default the system's).
#
#   examples/socat.sh state | present [DETENT] | dismiss | watch
set -eu
socket=${SHEETD_SOCKET:-/run/sheetd/io.sheetd.Sheet}
call() { printf '%s\0' "$1" | socat -t 2 - "UNIX-CONNECT:$socket" | tr '\0' '\n'; }
case ${1:-state} in
    state)   call '{"method":"io.sheetd.Sheet.GetState"}' ;;
    present) call "{\"method\":\"io.sheetd.Sheet.Present\",\"parameters\":{\"detent\":\"${2:-half}\"}}" ;;
    dismiss) call '{"method":"io.sheetd.Sheet.Dismiss"}' ;;
    # Monitor: one reply per change until Ctrl-C. A subscriber that shuts its side down is
    # hung up on, so socat's input stays open.
    watch)   { printf '%s\0' '{"method":"io.sheetd.Sheet.Monitor","more":true}'; sleep infinity; } |
                 socat - "UNIX-CONNECT:$socket" | tr '\0' '\n' ;;
    *)       echo "usage: $0 state | present [DETENT] | dismiss | watch" >&2; exit 64 ;;
esac
