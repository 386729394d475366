// Where the summary of a raw file is: the one rule that writers (compact, watch) and readers
// (compare, inspect, export, dumpgen verify) share (docs/store.md, "Where stores live").
// A dump's store is in its home, the outermost dump-root directory on the file's absolute
// path, whatever directory compact or watch was given. Versions before this rule put a store
// in the directory given to compact when that lay inside a dump; such nested stores are still
// read, and a writer keeps adding a file's rows to the nearest one that exists, so that the
// nearest store holding a path always holds its newest summary.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace msit::store {

// The home of the files in directory `abs_dir` (absolute, normal): the outermost directory on
// its path whose name makes it a dump root (docs/safety.md); "" when none does.
std::string store_home_of(std::string_view abs_dir);

// Where a writer may find the store of a file in `abs_dir`, nearest first: `abs_dir` and each
// ancestor up to its home, the home last. Empty when the directory is in no dump. The writer
// takes the first that holds a store, else creates it in the home.
std::vector<std::string> writer_store_dirs(std::string_view abs_dir);

// Where a reader looks for stores covering `abs_dir`, nearest first: `abs_dir` and every
// ancestor up to "/" (a dump copied under another name keeps its store). Where several stores
// hold the same raw path, the nearest wins; the others' rows for other paths are all read.
std::vector<std::string> reader_store_dirs(std::string_view abs_dir);

// `dir` + "/" + `name`, for "/" too.
std::string join_dir(std::string_view dir, std::string_view name);

}  // namespace msit::store
