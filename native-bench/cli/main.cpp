// Entry point of the kvscope CLI: wires argv, the standard streams and the file system.
#include <iostream>

#include "kvscope_cli.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return kvscope::cli::run(args, std::cout, std::cerr, kvscope::cli::read_file_from_disk);
}
