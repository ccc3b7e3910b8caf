package io.rafestore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The state of one key on every cloud, as found by {@link RafeStore#verify}: whether each cloud
 * holds the newest validly signed log of every trusted writer, and whether each listed holder of
 * every retained version holds bytes with the signed hash.
 *
 * @param key the key
 * @param clouds the ids of every configured cloud, in configuration order
 * @param newestLogs per trusted writer that has a log, the newest validly signed sequence seen
 * @param retainedVersions the versions readers can see (not deleted, not collected), newest first
 * @param findings every problem found; empty when the key is clean
 * @param extraObjects per cloud id, data objects of the key that no retained version lists on that
 *     cloud (orphans, surplus uploads, leftovers); informational, see {@link
 *     RafeStore#collectOrphans}
 */
public record VerifyReport(
    String key,
    List<String> clouds,
    Map<String, Long> newestLogs,
    List<Version> retainedVersions,
    List<Finding> findings,
    Map<String, List<String>> extraObjects) {

  /** What is wrong on one cloud. */
  public enum Problem {
    /** The cloud has no log of a writer that other clouds hold a valid log of. */
    METADATA_MISSING,
    /** The cloud's log of a writer is valid but older than the newest (or a different fork). */
    METADATA_STALE,
    /** The cloud's log does not parse, is for another key or writer, or its signature fails. */
    METADATA_INVALID,
    /**
     * Confidentiality option: the cloud's metadata lacks its valid key share of a sealed version
     * (readers need f+1 valid shares; repair restores it from the others).
     */
    KEY_SHARE_MISSING,
    /** The cloud did not answer (error or timeout); nothing is known about it. */
    UNREACHABLE,
    /** A listed holder of a retained version lacks its data object. */
    DATA_MISSING,
    /** A listed holder returns bytes that do not match the signed size and hash. */
    DATA_CORRUPT
  }

  /**
   * One problem.
   *
   * @param cloudId the cloud
   * @param problem what is wrong
   * @param subject the writer (for metadata) or data object name (for data)
   * @param detail human-readable detail
   */
  public record Finding(String cloudId, Problem problem, String subject, String detail) {
    public Finding {
      Objects.requireNonNull(cloudId, "cloudId");
      Objects.requireNonNull(problem, "problem");
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(detail, "detail");
    }

    @Override
    public String toString() {
      return cloudId + " " + problem + " " + subject + ": " + detail;
    }
  }

  public VerifyReport {
    Objects.requireNonNull(key, "key");
    clouds = List.copyOf(clouds);
    newestLogs = Map.copyOf(newestLogs);
    retainedVersions = List.copyOf(retainedVersions);
    findings = List.copyOf(findings);
    extraObjects = Map.copyOf(deepCopy(extraObjects));
  }

  /**
   * True when every cloud holds the newest signed log of every writer and every listed holder of
   * every retained version holds verified data. Extra objects do not make a key unclean.
   */
  public boolean isClean() {
    return findings.isEmpty();
  }

  /** The findings about one cloud. */
  public List<Finding> findingsFor(String cloudId) {
    List<Finding> out = new ArrayList<>();
    for (Finding f : findings) {
      if (f.cloudId().equals(cloudId)) {
        out.add(f);
      }
    }
    return out;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    sb.append("verify '")
        .append(key)
        .append("': ")
        .append(isClean() ? "clean" : findings.size() + " problem(s)")
        .append(", logs ")
        .append(new TreeMap<>(newestLogs))
        .append(", ")
        .append(retainedVersions.size())
        .append(" retained version(s)");
    for (String c : clouds) {
      List<Finding> mine = findingsFor(c);
      List<String> extra = extraObjects.getOrDefault(c, List.of());
      sb.append("\n  ").append(c).append(": ").append(mine.isEmpty() ? "ok" : "");
      for (Finding f : mine) {
        sb.append("\n    ").append(f.problem()).append(' ').append(f.subject());
        sb.append(" (").append(f.detail()).append(')');
      }
      if (!extra.isEmpty()) {
        sb.append("\n    ").append(extra.size()).append(" extra object(s)");
      }
    }
    return sb.toString();
  }

  private static Map<String, List<String>> deepCopy(Map<String, List<String>> in) {
    Map<String, List<String>> out = new java.util.TreeMap<>();
    in.forEach((k, v) -> out.put(k, List.copyOf(v)));
    return Map.copyOf(out);
  }
}
