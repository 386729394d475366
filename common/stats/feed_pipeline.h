// Two-stage pipeline for large tensors: one thread reads (pread + hash of stored bytes) into a
// small ring of batches while the calling thread reduces the previous batch.
#pragma once

#include <cstddef>
#include <functional>

#include "common/base/result.h"

namespace msit {

struct FeedPipelineOptions {
  size_t batch_bytes = 256u << 10;  // per slot; a slot stays L2-sized for the reducer
  size_t slots = 4;                 // read-ahead depth: slots - 1 batches in flight
};

// produce(buf, capacity) fills buf and returns the bytes written; 0 ends the stream; an error
// ends it too and is returned once the consumer has drained what came before. It runs on a
// helper thread, strictly sequentially. consume(buf, bytes) runs on the calling thread, in
// order. Memory: slots * batch_bytes.
Status run_feed_pipeline(const FeedPipelineOptions& opts,
                         const std::function<Result<size_t>(std::byte*, size_t)>& produce,
                         const std::function<void(const std::byte*, size_t)>& consume);

}  // namespace msit
