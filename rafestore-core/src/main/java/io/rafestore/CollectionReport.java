package io.rafestore;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What one garbage collection of a key did.
 *
 * @param key the key
 * @param collectedThrough the signed watermark after the collection: every version up to and
 *     including it is collected (empty if nothing has ever been collected)
 * @param versionsCollected versions this run newly placed under the watermark, newest first
 * @param objectsDeleted per cloud id, the data objects this run found and deleted
 * @param bytesFreed the sizes (as listed by the clouds) of the deleted objects, summed
 * @param logEntriesBefore entries in this writer's own log before the run
 * @param logEntriesAfter entries in this writer's own log after the run (compaction)
 * @param faults clouds that failed a listing or a delete (their objects are left for the next run)
 */
public record CollectionReport(
    String key,
    Optional<Version> collectedThrough,
    List<Version> versionsCollected,
    Map<String, Integer> objectsDeleted,
    long bytesFreed,
    int logEntriesBefore,
    int logEntriesAfter,
    List<CloudFault> faults) {
  public CollectionReport {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(collectedThrough, "collectedThrough");
    versionsCollected = List.copyOf(versionsCollected);
    objectsDeleted = Map.copyOf(objectsDeleted);
    faults = List.copyOf(faults);
  }

  /** Total data objects deleted on all clouds. */
  public int totalObjectsDeleted() {
    return objectsDeleted.values().stream().mapToInt(Integer::intValue).sum();
  }

  @Override
  public String toString() {
    return "collect '"
        + key
        + "': "
        + versionsCollected.size()
        + " versions collected"
        + collectedThrough.map(v -> " (watermark " + v + ")").orElse("")
        + ", "
        + totalObjectsDeleted()
        + " objects deleted "
        + new TreeMap<>(objectsDeleted)
        + ", "
        + bytesFreed
        + " bytes freed, own log "
        + logEntriesBefore
        + " -> "
        + logEntriesAfter
        + " entries"
        + (faults.isEmpty() ? "" : ", faults " + faults);
  }
}
