// package/nxrt_shared.cpp: libnxrt.so, the shared library of nxrt's C++ API (include/nxrt/*.h).
// It holds no code of its own: every object of nxrt's libraries is linked in whole (see
// CMakeLists.txt), and nxrt.map exports the public nxrt:: names.
#include "nxrt/session.h"
