// libspeechd from Debian (libspeechd-dev): speech through the system's speech-dispatcher, whose
// synthesizer (espeak-ng by default) speaks the sheet where no screen reader runs (a kiosk).
#include <speech-dispatcher/libspeechd.h>
