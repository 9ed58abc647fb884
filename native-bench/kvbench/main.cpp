// Entry point of kvbench: argv and the standard streams.
#include <iostream>

#include "kvbench.hpp"

int main(int argc, char** argv) {
  return kvbench::run(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
