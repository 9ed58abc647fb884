// What the commands' answerers share: a report or an error as the Answer every front end prints
// (answer_sizing.cpp, answer_solve.cpp, answer_explain.cpp; a request's own errors: answer_json.cpp).
#pragma once

#include "kvscope/request/report_json.hpp"
#include "kvscope/request/request.hpp"

namespace kvscope {

inline Answer failure_answer(const Error& e, int status = 2) {
  return Answer{status, error_to_json(e), e};
}

template <typename T, typename ToJson>
Answer report_answer(const Result<T>& result, ToJson to_json) {
  return result.ok ? Answer{0, to_json(result.value), {}} : failure_answer(result.error);
}

}  // namespace kvscope
