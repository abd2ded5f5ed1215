#pragma once
#include "npuvp/compiler/compiler.h"
