# Writes data/measured/index.json in the staged site: the kvbench records the page can show
# (the page cannot list a folder over plain HTTP).
file(GLOB records RELATIVE "${DIR}" "${DIR}/*.json")
list(REMOVE_ITEM records "index.json")
list(SORT records)
set(items "")
foreach(r IN LISTS records)
  if(items)
    string(APPEND items ", ")
  endif()
  string(APPEND items "\"${r}\"")
endforeach()
file(WRITE "${DIR}/index.json" "{\"schema\": \"kvscope.measured-index/1\", \"files\": [${items}]}\n")
