package io.rafestore.internal.protocol;

import io.rafestore.CloudFault;
import io.rafestore.CloudRequest;
import io.rafestore.OperationReceipt;
import io.rafestore.PhaseTiming;
import io.rafestore.RafeStoreListener;
import io.rafestore.ReadReceipt;
import io.rafestore.WriteReceipt;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that keeps every event it is told, for tests of what the client reports. */
class RecordingListener implements RafeStoreListener {
  record Fault(String key, CloudFault fault) {}

  record PhaseEnd(String key, PhaseTiming timing) {}

  final List<Fault> faults = new CopyOnWriteArrayList<>();
  final List<WriteReceipt> writes = new CopyOnWriteArrayList<>();
  final List<ReadReceipt> reads = new CopyOnWriteArrayList<>();
  final List<PhaseEnd> phases = new CopyOnWriteArrayList<>();
  final List<CloudRequest> requests = new CopyOnWriteArrayList<>();
  final List<OperationReceipt> operations = new CopyOnWriteArrayList<>();

  /** The events of operations in the order they came: "phase", "write", "read", "operation". */
  final List<String> order = new CopyOnWriteArrayList<>();

  @Override
  public void cloudFault(String key, CloudFault fault) {
    faults.add(new Fault(key, fault));
  }

  @Override
  public void writeCompleted(WriteReceipt receipt) {
    writes.add(receipt);
    order.add("write");
  }

  @Override
  public void readCompleted(ReadReceipt receipt) {
    reads.add(receipt);
    order.add("read");
  }

  @Override
  public void phaseCompleted(String key, PhaseTiming phase) {
    phases.add(new PhaseEnd(key, phase));
    order.add("phase");
  }

  @Override
  public void cloudRequest(CloudRequest request) {
    requests.add(request);
  }

  @Override
  public void operationCompleted(OperationReceipt receipt) {
    operations.add(receipt);
    order.add("operation");
  }

  void clear() {
    operations.clear();
    order.clear();
    faults.clear();
    writes.clear();
    reads.clear();
    phases.clear();
    requests.clear();
  }
}
