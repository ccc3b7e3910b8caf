package io.rafestore;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Data objects of a key that no trusted writer's log references (uploads of crashed writers,
 * uploads cancelled as surplus that still landed, leftovers of interrupted collections).
 *
 * @param key the key
 * @param deleted per cloud id, orphan object names deleted by this run
 * @param waiting per cloud id, orphan object names first seen unreferenced less than the grace
 *     period ago; they may belong to a write still in flight and are left alone
 * @param faults clouds that failed a listing or a delete
 */
public record OrphanReport(
    String key,
    Map<String, List<String>> deleted,
    Map<String, List<String>> waiting,
    List<CloudFault> faults) {
  public OrphanReport {
    Objects.requireNonNull(key, "key");
    deleted = Map.copyOf(deepCopy(deleted));
    waiting = Map.copyOf(deepCopy(waiting));
    faults = List.copyOf(faults);
  }

  /** Total orphan objects deleted. */
  public int totalDeleted() {
    return deleted.values().stream().mapToInt(List::size).sum();
  }

  @Override
  public String toString() {
    return "orphans of '"
        + key
        + "': deleted "
        + deleted
        + ", waiting for the grace period "
        + waiting
        + (faults.isEmpty() ? "" : ", faults " + faults);
  }

  private static Map<String, List<String>> deepCopy(Map<String, List<String>> in) {
    Map<String, List<String>> out = new java.util.TreeMap<>();
    in.forEach((k, v) -> out.put(k, List.copyOf(v)));
    return Map.copyOf(out);
  }
}
