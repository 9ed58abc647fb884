// The explain command answered (in the log reader's library, core/CMakeLists.txt).
#include "request/answering.hpp"

namespace kvscope {

Answer answer_explain(const Request& r) {
  return report_answer(explain(r.log_text, r.input),
                       [](const ExplainReport& e) { return explain_to_json(e); });
}

}  // namespace kvscope
