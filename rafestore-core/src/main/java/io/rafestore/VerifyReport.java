package io.rafestore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.TreeMap;

/**
 * The state of one key on every cloud, as found by {@link RafeStore#verify}: whether each cloud
 * holds the newest validly signed log of every trusted writer, whether each listed holder of every
 * retained version holds bytes with the signed hash, and how many more faults each retained version
 * survives ({@link #margins}).
 *
 * <p><b>Fault model of the margins.</b> A fault is the loss or corruption of one more stored copy:
 * one holder's copy of one part (or of a whole value), one coded fragment, one cloud's copy of the
 * writer's signed log, or one cloud's key share of a sealed value. Every holder of a value stores
 * every part of it, so a cloud that fails whole costs one copy of each part, and a version's margin
 * is also how many more whole clouds it survives. Only what this verify checked counts: a cloud
 * that did not answer adds nothing.
 *
 * <p>Immutable and thread-safe.
 *
 * @param key the key
 * @param clouds the ids of every configured cloud, in configuration order
 * @param newestLogs per trusted writer that has a log, the newest validly signed sequence seen
 * @param retainedVersions the versions readers can see (not deleted, not collected), newest first
 * @param findings every problem found; empty when the key is clean
 * @param extraObjects per cloud id, data objects of the key that no retained version lists on that
 *     cloud (orphans, surplus uploads, leftovers); informational, see {@link
 *     RafeStore#collectOrphans}
 * @param margins per retained version (same order), how many more faults it survives
 * @param laggingLogs clouds whose valid log of a writer is older than the newest (or absent) while
 *     at least n - f clouds hold the newest, found by a client whose writeM sends logs to n - f
 *     clouds only (an objective other than {@link Objective#latency()}): the lag that writeM leaves
 *     by design, not a fault; informational, like {@code extraObjects}, and not repaired. Under the
 *     latency objective such clouds are {@link #findings} ({@link Problem#METADATA_STALE}, {@link
 *     Problem#METADATA_MISSING}) and this list is empty
 */
public record VerifyReport(
    String key,
    List<String> clouds,
    Map<String, Long> newestLogs,
    List<Version> retainedVersions,
    List<Finding> findings,
    Map<String, List<String>> extraObjects,
    List<Margin> margins,
    List<Finding> laggingLogs) {

  /** A report without lagging logs (a client under the latency objective). */
  public VerifyReport(
      String key,
      List<String> clouds,
      Map<String, Long> newestLogs,
      List<Version> retainedVersions,
      List<Finding> findings,
      Map<String, List<String>> extraObjects,
      List<Margin> margins) {
    this(key, clouds, newestLogs, retainedVersions, findings, extraObjects, margins, List.of());
  }

  /**
   * How many more faults one retained version survives (see the fault model above): the least of
   * its data (per part: valid copies minus one; for a coded value: valid fragments minus k), its
   * metadata (clouds holding the writer's signed log with the version, minus one) and, for a sealed
   * value, its key shares (valid shares minus the f+1 a reader needs).
   *
   * @param version the version
   * @param faults how many more faults it survives: 0 means one more loses it ({@link
   *     #oneFaultFromLoss}); negative means it is lost already ({@link #lost}): it can be neither
   *     read nor repaired from what this verify found
   * @param weakest what limits it, for a person (e.g. {@code "part 2: 1 valid copy"}, {@code
   *     "fragments: 3 valid, 2 needed"}, {@code "metadata: on 2 clouds"})
   * @param missing when lost: the parts or fragments (or metadata, key shares) that no cloud holds
   *     valid; empty otherwise
   */
  public record Margin(Version version, int faults, String weakest, List<String> missing) {
    public Margin {
      Objects.requireNonNull(version, "version");
      Objects.requireNonNull(weakest, "weakest");
      missing = List.copyOf(missing);
    }

    /** Whether one more fault loses this version. */
    public boolean oneFaultFromLoss() {
      return faults == 0;
    }

    /** Whether the version is lost already (it can be neither read nor repaired). */
    public boolean lost() {
      return faults < 0;
    }

    @Override
    public String toString() {
      String s =
          version
              + ": "
              + (lost()
                  ? "LOST (missing everywhere: " + String.join(", ", missing) + ")"
                  : "survives " + faults + " more fault" + (faults == 1 ? "" : "s"))
              + (weakest.isEmpty() ? "" : " [" + weakest + "]");
      return oneFaultFromLoss() ? s + " ONE FAULT FROM LOSS" : s;
    }
  }

  /** A report without margins (as verify made before it computed them). */
  public VerifyReport(
      String key,
      List<String> clouds,
      Map<String, Long> newestLogs,
      List<Version> retainedVersions,
      List<Finding> findings,
      Map<String, List<String>> extraObjects) {
    this(key, clouds, newestLogs, retainedVersions, findings, extraObjects, List.of());
  }

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
    margins = List.copyOf(margins);
    laggingLogs = List.copyOf(laggingLogs);
  }

  /**
   * How many more faults the key survives: the least margin of its retained versions; empty when it
   * has none (or the report has no margins).
   */
  public OptionalInt faultsSurvivable() {
    return margins.stream().mapToInt(Margin::faults).min();
  }

  /** Whether some retained version is one fault from loss. */
  public boolean oneFaultFromLoss() {
    return margins.stream().anyMatch(Margin::oneFaultFromLoss);
  }

  /** The retained versions that are lost already (neither readable nor repairable). */
  public List<Margin> lost() {
    return margins.stream().filter(Margin::lost).toList();
  }

  /**
   * True when every cloud holds the newest signed log of every writer and every listed holder of
   * every retained version holds verified data. Extra objects and {@link #laggingLogs} (clouds a
   * cost-minded writeM leaves behind while n - f hold the newest log) do not make a key unclean.
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
    OptionalInt survivable = faultsSurvivable();
    if (survivable.isPresent() && survivable.getAsInt() < 0) {
      sb.append(", ").append(lost().size()).append(" version(s) LOST");
    } else if (survivable.isPresent()) {
      sb.append(", survives ").append(survivable.getAsInt()).append(" more fault(s)");
      if (oneFaultFromLoss()) {
        sb.append(" (ONE FAULT FROM LOSS)");
      }
    }
    for (Margin m : margins) {
      if (m.faults() <= 0) {
        sb.append("\n  ").append(m);
      }
    }
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
      for (Finding f : laggingLogs) {
        if (f.cloudId().equals(c)) {
          sb.append("\n    lagging log of ").append(f.subject());
          sb.append(" (").append(f.detail()).append(')');
        }
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
