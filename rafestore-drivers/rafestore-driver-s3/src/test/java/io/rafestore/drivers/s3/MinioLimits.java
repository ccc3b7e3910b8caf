package io.rafestore.drivers.s3;

import java.util.Set;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Skips, with a reason in the report, the contract cases MinIO cannot pass: it keeps objects as
 * files on one drive, so it cannot hold an object {@code a} beside {@code a/1} (writing one drops
 * the other) nor a name segment over 255 bytes. Amazon S3 has neither limit.
 */
final class MinioLimits implements ExecutionCondition {
  private static final Set<String> FILE_BACKED_LIMITS =
      Set.of(
          "listReturnsAllObjectsInAscendingOrderWithSizes",
          "listMatchesByStringPrefixAcrossDirectories",
          "listHandlesDeepAndLongNames");

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String method = context.getTestMethod().map(m -> m.getName()).orElse("");
    if (FILE_BACKED_LIMITS.contains(method)) {
      return ConditionEvaluationResult.disabled(
          "MinIO is file-backed: no object beside a same-named prefix, segments <= 255 bytes");
    }
    return ConditionEvaluationResult.enabled("runs on MinIO");
  }
}
