// Headers only: glibc's libintl and locale functions, which the Glibc module does not bring.
#include "CGettext.h"
