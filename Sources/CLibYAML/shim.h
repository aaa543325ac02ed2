// libyaml from Debian (libyaml-dev): the YAML parser whose events SheetYAML composes into
// plain data (the configuration, content files, `libinput record` headers).
#include <yaml.h>
