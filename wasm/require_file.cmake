# Fails the `site` build with a clear line when an npm package (the chart library, the bundler) has
# not been installed.
foreach(file IN ITEMS "${CHART_JS}" "${BUNDLER}")
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "site: ${file} is missing; run `npm ci` in the repository root first")
  endif()
endforeach()
