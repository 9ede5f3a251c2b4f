// Chat with Qwen3 / Llama 3.2 on et.LLM: the model and its tokenizer live in the playground
// worker (worker_ops.mjs); the page sends the whole conversation each turn (et.LLM
// prefills only what is new), streams the answer piece by piece, and can stop it.
import {el, useStyles} from '../../lib/dom.mjs';
import {fetchTensor} from '../../lib/reference_check.mjs';

useStyles(new URL('./chat.css', import.meta.url));

const STOP_TEXT = {eos: 'end of answer', max_new_tokens: 'token limit', context_full: 'context full', cancelled: 'stopped'};

function numberField(label, attrs, hint) {
  const input = el('input', {type: 'number', ...attrs});
  return {input, element: el('label', {class: 'chat-setting', title: hint}, el('span', {}, label), input)};
}

// An answer as text; one that is only whitespace (the tiny random models often echo the
// template's newlines) is shown with visible marks instead of an empty bubble.
function showAnswer(body, text) {
  if (text && !text.trim()) {
    const marks = text.replace(/\n/g, '\u21b5').replace(/\t/g, '\u2192').replace(/ /g, '\u00b7');
    body.replaceChildren(el('span', {class: 'chat-ws', title: 'whitespace only'}, marks));
  } else {
    body.textContent = text;
  }
}

export default {
  async mount(ctx) {
    const log = el('div', {class: 'chat-log', id: 'chat-log', 'aria-live': 'polite'});
    const input = el('textarea', {id: 'chat-input', rows: 2, placeholder: 'Message the model (Enter sends, Shift+Enter: new line)'});
    const send = el('button', {class: 'primary', id: 'chat-send'}, 'Send');
    const stop = el('button', {id: 'chat-stop', hidden: true}, '\u25a0 Stop');
    const fresh = el('button', {id: 'chat-new'}, 'New chat');
    const check = el('button', {id: 'chat-check'}, 'Check against the reference');
    const temperature = numberField('Temperature', {id: 'chat-temperature', min: 0, max: 2, step: 0.05, value: 0.7}, '0 = greedy (argmax)');
    const topK = numberField('Top-k', {id: 'chat-topk', min: 0, max: 1000, step: 1, value: 40}, '0 = off');
    const topP = numberField('Top-p', {id: 'chat-topp', min: 0, max: 1, step: 0.05, value: 0.9}, '1 = off');
    const seed = numberField('Seed', {id: 'chat-seed', min: 0, step: 1, value: 42}, 'the same seed and settings give the same answer');
    const penalty = numberField('Repetition penalty', {id: 'chat-penalty', min: 1, max: 2, step: 0.05, value: 1}, '1 = off; above 1 makes repeats less likely');
    const maxNew = numberField('Max new tokens', {id: 'chat-max', min: 1, max: 4096, step: 1, value: 16}, 'per answer');
    const thinking = el('input', {type: 'checkbox', id: 'chat-thinking'});
    const thinkingLabel = el('label', {class: 'chat-setting', title: "Qwen3's enable_thinking"}, thinking, el('span', {}, 'Thinking'));
    const system = el('input', {type: 'text', id: 'chat-system', placeholder: 'System prompt (optional)'});
    const stats = el('div', {class: 'hint chat-stats', id: 'chat-stats'});
    const context = el('div', {class: 'chat-context', id: 'chat-context'}, el('div', {class: 'chat-context-bar'}));
    const note = el('p', {class: 'hint chat-note', id: 'chat-note'});
    const checkOut = el('pre', {class: 'chat-check', id: 'chat-check-result', hidden: true});
    ctx.root.append(
      note,
      el('div', {class: 'chat-layout'},
         el('div', {class: 'chat-main'}, log,
            el('div', {class: 'chat-compose'}, input, el('div', {class: 'chat-buttons'}, send, stop)),
            el('div', {class: 'row'}, fresh, check, context, stats)),
         el('div', {class: 'chat-settings panel'}, el('h3', {}, 'Sampling'),
            temperature.element, topK.element, topP.element, seed.element, penalty.element, maxNew.element, thinkingLabel, system)),
      checkOut);

    let history = [];    // [{role, content}]
    let loaded = null;   // {key, info}
    let stopper = null;  // AbortController of the answer in flight
    let runs = 0;

    function optionChanged() {
      const option = ctx.option(), llm = option.llm;
      maxNew.input.value = llm.maxNewTokens;
      penalty.input.value = llm.repetitionPenalty ?? 1;
      thinking.checked = false;
      thinkingLabel.hidden = !llm.thinking;
      note.textContent = option.programs.main.override ? '' :
        `${option.label}: random weights, so the answers are gibberish; the tokenizer, chat template, KV cache, ` +
        `streaming and sampling are the real ones. Its context is ${llm.maxContextLen} tokens` +
        (llm.fit ? `, and its vocabulary ${llm.fit.vocabSize} ids: the tokenizer is cut to those (the byte alphabet and first merges).` : '.');
      newChat();
    }

    function newChat() {
      history = [];
      log.replaceChildren(el('div', {class: 'chat-empty hint'}, 'Say something to start the conversation.'));
      stats.textContent = '';
      showContext(0);
      if (loaded) ctx.request('reset', {key: loaded.key}).catch(() => {});
      ctx.publish({history: [], turns: []});
    }

    function showContext(position) {
      const max = ctx.option().llm.maxContextLen;
      context.title = `${position} of ${max} tokens of context used`;
      context.firstChild.style.width = `${Math.min(100, (100 * position) / max)}%`;
      context.dataset.position = position;
    }

    function bubble(role, text) {
      log.querySelector('.chat-empty')?.remove();
      const body = el('div', {class: 'chat-text'}, text);
      const meta = el('div', {class: 'chat-meta'});
      const b = el('div', {class: `chat-msg ${role}`}, el('div', {class: 'chat-role'}, role === 'user' ? 'You' : 'Model'), body, meta);
      log.append(b);
      log.scrollTop = log.scrollHeight;
      return {b, body, meta};
    }

    async function ensureLoaded(step, signal) {
      const option = ctx.option(), spec = option.programs.main, llm = option.llm;
      const key = `${spec.url}|${spec.sha256}`;
      if (loaded && loaded.key === key) return loaded;
      const r = await ctx.request('load', {
        key, label: option.label.replace(/ \(.*/, ''), program: spec, tokenizer: llm.tokenizer,
        tokenizerConfig: llm.tokenizerConfig, fit: spec.override ? null : llm.fit, maxContextLen: llm.maxContextLen,
      }, {onProgress: step, signal});
      loaded = {key, info: r.info};
      return loaded;
    }

    function sampling() {
      const t = Number(temperature.input.value);
      const options = {maxNewTokens: Math.max(1, Math.floor(Number(maxNew.input.value) || 1))};
      if (!(t > 0)) options.greedy = true;
      else {
        options.temperature = t;
        const k = Math.floor(Number(topK.input.value));
        if (k > 0) options.topK = k;
        const p = Number(topP.input.value);
        if (p > 0 && p < 1) options.topP = p;
        options.seed = Math.max(0, Math.floor(Number(seed.input.value) || 0));
      }
      const r = Number(penalty.input.value);
      if (r > 1) options.repetitionPenalty = r;
      if (ctx.option().llm.thinking) options.enableThinking = thinking.checked;
      return options;
    }

    async function sendMessage() {
      const text = input.value.trim();
      if (!text || stopper) return;
      const turn = [...history, {role: 'user', content: text}];
      const sys = system.value.trim();
      const messages = sys ? [{role: 'system', content: sys}, ...turn] : turn;
      const options = sampling();
      input.value = '';
      const user = bubble('user', text);
      const answer = bubble('assistant', '');
      answer.b.classList.add('streaming');
      const stopController = new AbortController();
      stopper = stopController;
      send.hidden = true;
      stop.hidden = false;
      let pieces = 0, tokens = 0, firstMs = null, lastMs = 0, raw = '';
      const result = await ctx.task('Chat', async (step, signal) => {
        await ensureLoaded(step, signal);
        step('Prefilling the conversation', undefined);
        const both = AbortSignal.any ? AbortSignal.any([signal, stopController.signal]) : stopController.signal;
        try {
          return await ctx.request('generate', {key: loaded.key, messages, options}, {
            signal: both,
            onProgress: (p) => {
              if (typeof p === 'string') return step(p);
              pieces++;
              tokens = p.n;
              lastMs = p.ms;
              if (firstMs === null) firstMs = p.ms;
              raw += p.text;
              showAnswer(answer.body, raw);
              log.scrollTop = log.scrollHeight;
              const rate = tokens > 1 ? ((tokens - 1) * 1000) / (p.ms - firstMs) : 0;
              step(`Generating: ${tokens} token(s)${rate ? `, ${rate.toFixed(1)} tokens/s` : ''}`);
            },
          });
        } catch (e) {
          // Stop: the worker ends the answer before its next token; what came is kept.
          if (stopController.signal.aborted && !signal.aborted) return {stopped: true};
          throw e;
        }
      });
      stopper = null;
      send.hidden = false;
      stop.hidden = true;
      answer.b.classList.remove('streaming');
      if (!result) {  // failed or cancelled: the turn is dropped
        answer.b.remove();
        user.b.classList.add('failed');
        input.value = text;
        return;
      }
      const content = raw;
      history = [...turn, {role: 'assistant', content}];
      let line;
      if (result.stopped) {
        const rate = tokens > 1 ? ((tokens - 1) * 1000) / (lastMs - firstMs) : 0;
        line = `${tokens} token(s) · ${rate.toFixed(1)} tokens/s · stopped`;
      } else {
        const s = result.stats;
        line = `${s.generatedTokens} token(s) · ${s.decodeTokensPerS.toFixed(1)} tokens/s · first token ${s.timeToFirstTokenMs.toFixed(0)} ms · ` +
               `prompt ${s.promptTokens} token(s) at ${s.prefillTokensPerS.toFixed(0)} tokens/s · ${STOP_TEXT[s.stopReason] || s.stopReason}`;
        if (result.dropped) line += ` · ${result.dropped} earlier turn(s) left out to fit the ${ctx.option().llm.maxContextLen}-token context`;
        showContext(s.position);
        if (s.stopReason === 'context_full') {
          ctx.message(`The model's context (${ctx.option().llm.maxContextLen} tokens) is full: start a new chat to go on.`, 'warn');
        }
      }
      answer.meta.textContent = line;
      stats.textContent = line;
      runs++;
      const turns = [...(window.playground.demos.chat?.turns || []), {
        user: text, text: content, pieces, tokens: result.tokens || null, stats: result.stats || null, stopped: !!result.stopped, dropped: result.dropped || 0, options}];
      ctx.publish({history, turns, runs, position: result.stats ? result.stats.position : null});
    }

    send.addEventListener('click', sendMessage);
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && !e.shiftKey) {
        e.preventDefault();
        sendMessage();
      }
    });
    stop.addEventListener('click', () => stopper && stopper.abort());
    fresh.addEventListener('click', () => { if (!stopper) newChat(); });

    // Greedy on the fixture's prefill ids, one token, against the argmax of PyTorch's logits.
    check.addEventListener('click', async () => {
      const option = ctx.option(), ref = option.reference;
      if (!ref) {
        ctx.message(`${option.label} has no reference case to check against.`, 'warn');
        return;
      }
      const r = await ctx.task('Checking against the reference', async (step, signal) => {
        await ensureLoaded(step, signal);
        const [ids] = await Promise.all(ref.inputs.slice(0, 1).map((t) => fetchTensor(t, signal)));
        const [logits] = await Promise.all(ref.outputs.map((t) => fetchTensor(t, signal)));
        const prompt = Array.from(ids.data, Number);
        await ctx.request('reset', {key: loaded.key});
        const out = await ctx.request('generate', {key: loaded.key, messages: prompt, options: {greedy: true, maxNewTokens: 1}}, {signal});
        await ctx.request('reset', {key: loaded.key});
        const order = Array.from(logits.data.keys()).sort((a, b) => logits.data[b] - logits.data[a]);
        return {prompt, token: out.tokens[0], want: order[0], gap: logits.data[order[0]] - logits.data[order[1]]};
      });
      if (!r) return;
      history = [];
      newChat();
      const ok = r.token === r.want;
      checkOut.hidden = false;
      checkOut.textContent = `Greedy after the prompt ids [${r.prompt}]: token ${r.token}; PyTorch's logits have their ` +
        `argmax at ${r.want} (ahead of the next by ${r.gap.toFixed(3)}) ${ok ? '\u2713 same' : '\u2717 different'}`;
      ctx.publish({check: {...r, ok}});
    });

    optionChanged();
    ctx.publish({ready: true});
    return {onModelChange: () => { loaded = null; optionChanged(); }};
  },
};
