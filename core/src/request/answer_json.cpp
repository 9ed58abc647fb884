// A request's JSON answered by the answerer a front end names: the core's one exception boundary.
// An exception (a library's throw: nlohmann's, std::stoul's, bad_alloc) becomes an internal_error
// answer. In the WebAssembly module every other core file is compiled without cleanup code
// (-fignore-exceptions, core/CMakeLists.txt): an exception still reaches this catch, but the
// destructors on its way do not run, leaking that answer's memory: the module 7% smaller.
#include <exception>

#include "request/answering.hpp"
#include "kvscope/request/request.hpp"

namespace kvscope {

Answer answer_json(Command command, std::string_view request_json, Answerer answerer) {
  try {
    const Result<Request> request = request_from_json(request_json, command);
    return request.ok ? answerer(request.value) : failure_answer(request.error);
  } catch (const std::exception& e) {
    return failure_answer(make_error(kInternalError, "", e.what()), 70);
  }
}

}  // namespace kvscope
