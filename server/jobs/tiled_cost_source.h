// A validation's cost matrices as tiles in the store (cost_tiles.h): planned and queued when the
// validation first asks for a matrix, computed by the tile jobs of every replica and by the
// validation's own job thread, and assembled here once a matrix's last tile is stored. Whoever
// computed a tile, its values are the pairs' TWEDs bit for bit, so the report is the one a
// single process computes.
//
// Used by the one job thread that runs the validation (Validate calls it in order).

#ifndef WASSERWARP_SERVER_JOBS_TILED_COST_SOURCE_H_
#define WASSERWARP_SERVER_JOBS_TILED_COST_SOURCE_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobs/tile_jobs.h"
#include "validations/validation_store.h"
#include "wasserwarp/cost_tiles.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::service {

class TiledCostSource final : public CostMatrixSource {
 public:
  // The validation `id` of session instance `session_key`, run with `options` (which must
  // outlive this), its matrices in tiles of about `tile_cells` DP cells.
  TiledCostSource(ValidationStore& validations, TileJobs& tiles, int64_t session_key,
                  std::string id, const ValidationOptions& options, uint64_t tile_cells);

  absl::StatusOr<CostMatrix> Compute(CostMatrixKind kind, const ValidationRuns& runs,
                                     const TwedParams& params,
                                     const CostMatrixOptions& options) override;

  // DP cells of the tiles this thread computed (the job's own share); any thread.
  uint64_t cells_here() const { return cells_here_.load(std::memory_order_relaxed); }
  // DP cells of every tile planned; 0 before the first matrix is asked for. Any thread.
  uint64_t cells_planned() const { return cells_planned_.load(std::memory_order_relaxed); }

 private:
  // Plans every matrix the validation needs and queues their tiles, so that other replicas
  // work on the later matrices while this one still waits for the first.
  absl::Status Plan(const ValidationRuns& runs);
  // Claims and computes tiles of this validation, one after another, until none is left to
  // claim; the first error otherwise.
  absl::Status ComputeClaimable(const ValidationRuns& runs, const TwedParams& params,
                                const CostMatrixOptions& options);
  // Computes tiles of this validation here while there are any to claim, then waits until
  // every tile of `kind` is stored.
  absl::Status ComputeUntilDone(CostMatrixKind kind, const ValidationRuns& runs,
                                const TwedParams& params, const CostMatrixOptions& options);
  absl::StatusOr<CostMatrix> Assemble(CostMatrixKind kind, const MatrixRuns& runs,
                                      const TwedParams& params);

  ValidationStore& validations_;
  TileJobs& tiles_;
  const int64_t session_key_;
  const std::string id_;
  const ValidationOptions& options_;
  const uint64_t tile_cells_;
  bool planned_ = false;
  std::map<CostMatrixKind, std::vector<CostTile>> plan_;
  std::atomic<uint64_t> cells_here_{0};
  std::atomic<uint64_t> cells_planned_{0};
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_TILED_COST_SOURCE_H_
