// Entry point of the kvscope CLI: wires argv, the standard streams and the file system.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "kvscope_cli.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const kvscope::cli::FileReader read_file = [](const std::string& path, std::string& content,
                                                std::string& error) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      error = "is a directory";
      return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      error = "cannot open file";
      return false;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
      error = "cannot read file";
      return false;
    }
    content = buffer.str();
    return true;
  };
  return kvscope::cli::run(args, std::cout, std::cerr, read_file);
}
