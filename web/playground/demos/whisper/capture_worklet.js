// Audio worklet of the Whisper demo's microphone: hands each block of the first input
// channel to the page (the page resamples to 16 kHz; no codec is involved).
class WickCapture extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (channel) this.port.postMessage(channel.slice());
    return true;
  }
}
registerProcessor('wick-capture', WickCapture);
