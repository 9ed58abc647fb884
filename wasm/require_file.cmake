# Fails the `site` build with a clear line when the chart library has not been installed.
if(NOT EXISTS "${CHART_JS}")
  message(FATAL_ERROR "site: ${CHART_JS} is missing; run `npm ci` in the repository root first")
endif()
