defmodule CodexClient do
  @moduledoc """
  A small Elixir wrapper over libcodexclient (the C ABI of the Rust codex-client library),
  written as a NIF that never blocks a normal scheduler.

      {:ok, c} = CodexClient.start_link(codex_home: "/path/home", codex_bin: "/path/codex")
      {:ok, thread} = CodexClient.thread_start(c, %{})
      {:ok, turn} = CodexClient.turn_start(c, thread, "hello")
      receive do
        {:codex_event, "item/agentMessage/delta", params_json} -> ...
        {:codex_request, request, "item/commandExecution/requestApproval", params_json} ->
          CodexClient.approve(c, request)
      end

  Or typed (`events: :typed`, see `CodexClient.Event`), with a local image in the input:

      alias CodexClient.{Event, Item}
      {:ok, c} = CodexClient.start_link(codex_home: "/path/home", events: :typed)
      {:ok, thread} = CodexClient.thread_start(c)
      {:ok, _turn} = CodexClient.turn_start(c, thread, [{:text, "what is this?"}, {:local_image, "/tmp/a.png"}])
      receive do
        {:codex, %Event.AgentMessageDelta{delta: piece}} -> ...
        {:codex, %Event.ItemCompleted{item: %Item.AgentMessage{text: text}}} -> ...
        {:codex, %Event.CommandApproval{command: cmd} = req} -> CodexClient.approve(c, req)
        {:codex, %Event.TurnCompleted{status: :failed, error: %CodexClient.TurnError{message: m}}} -> ...
      end

  Messages sent to the owner (the process that called `start_link/1`, or `opts[:owner]`),
  in the order the server produced them (with `events: :raw`, the default; with `events:
  :typed` each of them arrives decoded instead, as `{:codex, struct}`: see
  `CodexClient.Event`):

    * `{:codex_event, method, params_json}` - a server notification;
    * `{:codex_request, request, method, params_json}` - a server request (an approval, a
      question): answer an approval with `approve/2`, `approve_for_session/2`, `decline/2`
      or `cancel/2`, anything else with `respond/3`; a request nobody answers is declined
      when its term is garbage collected (fail-closed);
    * `{:codex_disconnected, reason, stderr_tail}` - the connection ended;
    * `{:codex_error, message}`, `{:codex_overflow, dropped}` - connection reports.

  How it works: the process started by `start_link/1` (a GenServer, the "pump") owns the
  NIF resource and waits on libcodexclient's event fd with `enif_select`. When the fd becomes
  readable the pump calls the NIF's `drain/3`, which pulls up to 64 events with
  `codex_client_next_event(timeout 0)` and sends them to the owner (with `events: :typed` it
  hands them to the pump, which decodes them with `CodexClient.Event.decode/1` and sends them
  on, in the same order), then re-arms the select.
  Requests (`thread_start/2`, `turn_start/4`, `interrupt/4`) go out with the asynchronous
  `codex_client_request`; their answers come back as events and the pump replies to the caller.
  Connecting and disconnecting (which wait for the server) run on dirty-IO schedulers.

  The pump is linked to the owner and monitors it. When the owner dies the pump dies, the
  NIF's monitor on the pump stops the select and ends the connection (the Codex process is
  stopped), and the resource destructor frees the client on a helper thread.
  """
  use GenServer

  alias CodexClient.{Event, JSON, Nif}

  @drain_batch 64

  @type t :: pid

  @doc """
  Starts Codex and connects. Options: `:transport` (`"stdio"`, the default: `codex
  app-server` over stdio; `"exec"`: one `codex exec --json` per turn, no approvals; or any
  spec `codex_options_set_transport` takes), `:codex_bin`, `:codex_home`, `:cwd`,
  `:client_name`, `:env` (`[{"NAME", "value"}]`), `:config` (`["key=value"]` overrides),
  `:args`, `:timeout_ms` (default request timeout), `:owner` (default `self()`), `:events`
  (`:raw`, the default: the tuples above; `:typed`: `{:codex, struct}` messages, see
  `CodexClient.Event`).
  """
  @spec start_link(keyword) :: {:ok, t} | {:error, term}
  def start_link(opts \\ []) do
    owner = Keyword.get(opts, :owner, self())

    case Keyword.get(opts, :events, :raw) do
      mode when mode in [:raw, :typed] ->
        GenServer.start_link(__MODULE__, {owner, opts})

      other ->
        {:error, {:invalid_argument, "events: #{inspect(other)} (expected :raw or :typed)"}}
    end
  end

  @doc "`thread/start`. Returns the new thread's id."
  def thread_start(client, params \\ %{}, timeout \\ 60_000) do
    with {:ok, r} <- call(client, "thread/start", params, timeout), do: {:ok, r["thread"]["id"]}
  end

  @typedoc """
  One part of a turn's input: `{:text, text}` (or a bare string), `{:local_image, path}` (an
  image file Codex reads and sends to the model), `{:image, url}` (an image URL; not on the
  exec transport), or a map forwarded as it is (an input item in the server's own words).
  """
  @type input_part ::
          String.t() | {:text, String.t()} | {:local_image, Path.t()} | {:image, String.t()} | map

  @doc """
  `turn/start`: sends `input` on `thread_id` and returns the turn's id when the turn started;
  its events arrive as messages. `input` is a string (the user's text), a list of
  `t:input_part/0` (text and images, in order), or a map of extra `turn/start` params with
  the input under `"text"` (a string) or `"input"` (a list of parts).

      CodexClient.turn_start(c, thread, "hello")
      CodexClient.turn_start(c, thread, [{:text, "what is in it?"}, {:local_image, "/tmp/a.png"}])
      CodexClient.turn_start(c, thread, %{"input" => [{:text, "hi"}], "model" => "..."})

  A part it does not understand is `{:error, {:invalid_argument, message}}`, nothing sent.
  """
  @spec turn_start(t, String.t(), String.t() | [input_part] | map, timeout) ::
          {:ok, String.t()} | {:error, term}
  def turn_start(client, thread_id, input, timeout \\ 60_000)

  def turn_start(client, thread_id, text, timeout) when is_binary(text),
    do: turn_start(client, thread_id, %{"input" => [{:text, text}]}, timeout)

  def turn_start(client, thread_id, parts, timeout) when is_list(parts),
    do: turn_start(client, thread_id, %{"input" => parts}, timeout)

  def turn_start(client, thread_id, %{} = params, timeout) do
    {text, extra} = Map.pop(params, "text")
    {parts, extra} = Map.pop(extra, "input")

    parts =
      case {text, parts} do
        {nil, nil} -> {:error, "no input: give \"text\" or \"input\""}
        {nil, parts} when is_list(parts) -> parts
        {nil, text} when is_binary(text) -> [{:text, text}]
        {text, nil} -> [{:text, text}]
        _ -> {:error, "give either \"text\" or \"input\", not both"}
      end

    with parts when is_list(parts) <- parts,
         {:ok, items} <- input_items(parts),
         params = Map.merge(extra, %{"threadId" => thread_id, "input" => items}),
         {:ok, r} <- call(client, "turn/start", params, timeout) do
      {:ok, r["turn"]["id"]}
    else
      {:error, msg} when is_binary(msg) -> {:error, {:invalid_argument, msg}}
      {:error, _} = e -> e
    end
  end

  # The user's input parts as the `input` items of `turn/start` (the C ABI has no
  # asynchronous turn start that takes images: the NIF sends `turn/start` itself).
  defp input_items(parts) do
    Enum.reduce_while(parts, {:ok, []}, fn part, {:ok, acc} ->
      case input_item(part) do
        {:ok, item} -> {:cont, {:ok, [item | acc]}}
        :error -> {:halt, {:error, "unknown input part #{inspect(part)}"}}
      end
    end)
    |> case do
      {:ok, items} -> {:ok, Enum.reverse(items)}
      e -> e
    end
  end

  defp input_item(text) when is_binary(text), do: input_item({:text, text})

  defp input_item({:text, text}) when is_binary(text),
    do: {:ok, %{"type" => "text", "text" => text}}

  defp input_item({:local_image, path}) when is_binary(path) or is_list(path),
    do: {:ok, %{"type" => "localImage", "path" => Path.expand(to_string(path))}}

  defp input_item({:image, url}) when is_binary(url),
    do: {:ok, %{"type" => "image", "url" => url}}

  defp input_item(%{} = raw), do: {:ok, raw}
  defp input_item(_), do: :error

  @doc "`turn/interrupt`: the turn then completes with status \"interrupted\"."
  def interrupt(client, thread_id, turn_id, timeout \\ 60_000) do
    with {:ok, _} <-
           call(
             client,
             "turn/interrupt",
             %{"threadId" => thread_id, "turnId" => turn_id},
             timeout
           ),
         do: :ok
  end

  @doc """
  Answers a server request from a `{:codex_request, request, method, params_json}` message.
  `result` is a map (encoded to JSON) or JSON text, e.g. `%{"decision" => "accept"}`.
  Non-blocking (it only queues a line for the server); callable from any process.
  """
  def respond(_client, request, result) do
    json = if is_binary(result), do: result, else: JSON.encode!(result)
    Nif.respond(handle(request), json)
  end

  # The request handle of a raw message's `request` or of a typed request struct.
  defp handle(%{request: request}), do: request
  defp handle(request), do: request

  @doc """
  Approves an approval request (a command, a file change) from a
  `{:codex_request, request, method, params_json}` message. The library words the answer for
  the request's method. Returns `:ok`, or `{:error, {status, message}}` (already answered,
  disconnected, or not an approval). Non-blocking; callable from any process.
  """
  @spec approve(t, reference) :: :ok | {:error, term}
  def approve(client, request), do: decide(client, request, "accept")

  @doc "Approves this request and the ones like it for the rest of the session (see `approve/2`)."
  @spec approve_for_session(t, reference) :: :ok | {:error, term}
  def approve_for_session(client, request), do: decide(client, request, "acceptForSession")

  @doc "Declines an approval request; the turn goes on (see `approve/2`)."
  @spec decline(t, reference) :: :ok | {:error, term}
  def decline(client, request), do: decide(client, request, "decline")

  @doc "Declines an approval request and interrupts the turn (see `approve/2`)."
  @spec cancel(t, reference) :: :ok | {:error, term}
  def cancel(client, request), do: decide(client, request, "cancel")

  @doc """
  Approves a command approval and adds an exec-policy rule allowing commands that start with
  `prefix` (a list of words, e.g. `["npm", "test"]`) from now on; `[]` (the default) takes
  the rule the server proposed. The library words the answer for the request's method.
  Returns `:ok`, or `{:error, {status, message}}` (not a command approval, nothing proposed,
  already answered). Non-blocking; callable from any process.
  """
  @spec approve_with_execpolicy_amendment(t, reference, [String.t()]) :: :ok | {:error, term}
  def approve_with_execpolicy_amendment(_client, request, prefix \\ []),
    do: Nif.respond_execpolicy_amendment(handle(request), prefix)

  defp decide(_client, request, word), do: Nif.respond_decision(handle(request), word)

  @doc "Any JSON-RPC request, asynchronously sent; returns the decoded result."
  def call(client, method, params \\ %{}, timeout \\ 60_000) do
    json = if is_binary(params), do: params, else: JSON.encode!(params)
    GenServer.call(client, {:request, method, json, timeout}, timeout + 5_000)
  end

  @doc "The OS process id of the Codex app-server."
  def server_pid(client), do: GenServer.call(client, :server_pid)

  @doc """
  The last bytes the server wrote to stderr (`codex_client_stderr_tail`): `{:ok, text}`
  (`""` when it wrote nothing). For the exec transport a failed turn's own stderr is in its
  error (`CodexClient.TurnError` `additional_details`).
  """
  @spec stderr_tail(t) :: {:ok, String.t()} | {:error, term}
  def stderr_tail(client), do: GenServer.call(client, :stderr_tail)

  @doc "How many clients this NIF opened and has not freed yet (for leak checks)."
  def live_clients, do: Nif.live_clients()

  @doc "Disconnects (stops the Codex process) and stops the pump."
  def stop(client), do: GenServer.stop(client, :normal, 10_000)

  # ------------------------------------------------------------------------------ pump

  @impl true
  def init({owner, opts}) do
    nif_opts =
      %{
        codex_bin: opts[:codex_bin],
        codex_home: opts[:codex_home],
        cwd: opts[:cwd],
        client_name: opts[:client_name],
        transport: opts[:transport],
        env: Enum.map(opts[:env] || [], &env_entry/1),
        config: opts[:config] || [],
        args: opts[:args] || [],
        timeout_ms: opts[:timeout_ms] || 0
      }
      |> Map.new(fn {k, v} ->
        {k, if(is_list(v) or is_integer(v) or is_nil(v), do: v, else: to_string(v))}
      end)

    # open/2 is a dirty-IO NIF: it spawns the server and waits for the handshake.
    case Nif.open(nif_opts, owner) do
      {:ok, res} ->
        Process.monitor(owner)
        :ok = Nif.select(res)

        {:ok,
         %{
           res: res,
           owner: owner,
           pending: %{},
           connected: true,
           typed: Keyword.get(opts, :events, :raw) == :typed
         }}

      {:error, reason} ->
        {:stop, reason}
    end
  end

  defp env_entry({k, v}), do: "#{k}=#{v}"
  defp env_entry(s) when is_binary(s), do: s

  @impl true
  def handle_call({:request, _m, _p, _t}, _from, %{connected: false} = s),
    do: {:reply, {:error, :disconnected}, s}

  def handle_call({:request, method, json, timeout}, from, s) do
    case Nif.request(s.res, method, json, timeout) do
      {:ok, id} -> {:noreply, put_in(s.pending[id], from)}
      {:error, _} = e -> {:reply, e, s}
    end
  end

  def handle_call(:server_pid, _from, s), do: {:reply, Nif.server_pid(s.res), s}
  def handle_call(:stderr_tail, _from, s), do: {:reply, Nif.stderr_tail(s.res), s}

  @impl true
  def handle_info({:select, res, :undefined, :ready_input}, %{res: res} = s) do
    {state, drained} = Nif.drain(res, @drain_batch, s.typed)

    s =
      Enum.reduce(drained, s, fn
        {id, outcome}, s when is_integer(id) ->
          reply(s, id, outcome)

        # events: :typed: the other events, in order among the responses.
        message, s ->
          send(s.owner, {:codex, Event.decode(message)})
          s
      end)

    if state == :disconnected do
      for {_, from} <- s.pending, do: GenServer.reply(from, {:error, :disconnected})
      {:noreply, %{s | connected: false, pending: %{}}}
    else
      {:noreply, s}
    end
  end

  def handle_info({:DOWN, _ref, :process, owner, _reason}, %{owner: owner} = s),
    do: {:stop, :normal, s}

  def handle_info(_other, s), do: {:noreply, s}

  defp reply(s, id, outcome) do
    {from, pending} = Map.pop(s.pending, id)

    if from do
      reply =
        case outcome do
          {:ok, json} -> {:ok, JSON.decode!(json)}
          {:error, _} = e -> e
        end

      GenServer.reply(from, reply)
    end

    %{s | pending: pending}
  end

  @impl true
  def terminate(_reason, s) do
    # Stop watching the fd first (the client closes it when freed), then stop the server on a
    # dirty-IO scheduler. The resource itself is freed when its last reference goes.
    Nif.stop_select(s.res)
    Nif.disconnect(s.res)
    :ok
  end
end
