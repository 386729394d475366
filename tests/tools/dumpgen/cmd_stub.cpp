#include "tests/tools/dumpgen/commands.h"
namespace dumpgen {
int run_model(const ModelOptions&) { return 2; }
}
