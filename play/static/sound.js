// The table's sounds, made in the page with the Web Audio API (no sound files): the cue's tip,
// a ball on a ball, a ball on a cushion, a ball dropping into a pocket. Muting is remembered.

const KEY = "piramida-muted";

export class Sounds {
  constructor() {
    this.muted = localStorage.getItem(KEY) === "1";
    this.audio = null;
    this.heard = []; // every sound asked for, muted or not: what the page would make heard (tests)
  }

  setMuted(muted) {
    this.muted = muted;
    localStorage.setItem(KEY, muted ? "1" : "0");
  }

  // A browser lets a page make sound only after a click or a key: the first one opens the audio.
  unlock() {
    if (!this.audio && window.AudioContext) this.audio = new AudioContext();
    if (this.audio && this.audio.state === "suspended") this.audio.resume();
  }

  play(kind, loudness = 1) {
    this.heard.push(kind);
    if (this.muted || !this.audio) return;
    const a = this.audio, now = a.currentTime;
    if (kind === "cue") this.knock(now, 1800, 0.03, 0.5 * loudness, "bandpass");
    else if (kind === "ball") this.knock(now, 3200, 0.025, 0.6 * loudness, "bandpass");
    else if (kind === "cushion") this.knock(now, 220, 0.08, 0.7 * loudness, "lowpass");
    else if (kind === "pocket") {
      this.knock(now, 140, 0.16, 0.9 * loudness, "lowpass");
      this.knock(now + 0.07, 900, 0.05, 0.25 * loudness, "bandpass");
    }
  }

  // A short burst of noise through a filter: clicks for ivory, thuds for rubber and leather.
  knock(at, frequency, seconds, gain, type) {
    const a = this.audio, length = Math.ceil(a.sampleRate * seconds);
    const buffer = a.createBuffer(1, length, a.sampleRate), data = buffer.getChannelData(0);
    for (let i = 0; i < length; i++) data[i] = (Math.random() * 2 - 1) * Math.pow(1 - i / length, 4);
    const source = a.createBufferSource(), filter = a.createBiquadFilter(), level = a.createGain();
    source.buffer = buffer;
    filter.type = type; filter.frequency.value = frequency; filter.Q.value = type === "bandpass" ? 4 : 0.7;
    level.gain.value = gain;
    source.connect(filter).connect(level).connect(a.destination);
    source.start(at);
  }
}
