package io.rafestore;

import java.util.List;
import java.util.Objects;

/**
 * What {@link RafeStore#repair} did to one key.
 *
 * @param before the state found first
 * @param actions what was copied, one line each (e.g. {@code "p2: metadata of alice (seq 7)"})
 * @param failures copies that failed or could not be made (no verified source, coded pieces)
 * @param superseded copies of a writer's log not made because the cloud's log changed after repair
 *     read it (its writer stored a newer one, most likely): not failures, and repair never replaces
 *     a log it did not read; {@code after} shows what the cloud holds now (a cloud that refuses
 *     every copy this way stays a finding there)
 * @param after the state after the copies, verified again
 */
public record RepairReport(
    VerifyReport before,
    List<String> actions,
    List<String> failures,
    List<String> superseded,
    VerifyReport after) {
  public RepairReport {
    Objects.requireNonNull(before, "before");
    Objects.requireNonNull(after, "after");
    actions = List.copyOf(actions);
    failures = List.copyOf(failures);
    superseded = List.copyOf(superseded);
  }

  /** A report without superseded copies. */
  public RepairReport(
      VerifyReport before, List<String> actions, List<String> failures, VerifyReport after) {
    this(before, actions, failures, List.of(), after);
  }

  /** Whether the key is clean after the repair. */
  public boolean isClean() {
    return after.isClean();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("repair '").append(before.key()).append("': ");
    sb.append(actions.size()).append(" copy(ies)");
    for (String a : actions) {
      sb.append("\n  copied ").append(a);
    }
    for (String f : failures) {
      sb.append("\n  FAILED ").append(f);
    }
    for (String s : superseded) {
      sb.append("\n  superseded ").append(s);
    }
    sb.append('\n').append(after);
    return sb.toString();
  }
}
