defmodule CodexClient.Item do
  @moduledoc """
  The items of a turn (the app-server's `ThreadItem` union, camelCase on the wire) as structs
  with snake_case fields, for `CodexClient.Event.ItemStarted` and `ItemCompleted`.

  Known kinds: `AgentMessage`, `UserMessage`, `Reasoning`, `CommandExecution`, `FileChange`,
  `McpToolCall`, `Plan`. Any other kind (or a known kind whose JSON is not an object) is an
  `Unknown` with the item's `type` and its JSON: nothing is dropped. Every struct keeps the
  whole decoded item under `:raw`, so fields this module does not name are still there.

  Statuses (`CommandExecution`, `FileChange`, `McpToolCall`) are atoms for the values a user
  matches on (`:in_progress`, `:completed`, `:failed`, `:declined`); a status this module does
  not know stays the string the server sent.
  """

  alias CodexClient.Event

  defmodule AgentMessage do
    @moduledoc "`agentMessage`: the agent's reply. `text` is the whole message (the deltas joined)."
    defstruct [:id, :text, :phase, :raw]
    @type t :: %__MODULE__{id: String.t(), text: String.t(), phase: String.t() | nil, raw: map}
  end

  defmodule UserMessage do
    @moduledoc """
    `userMessage`: the user's input as Codex recorded it. `content` is the list of input parts
    as decoded JSON maps (`%{"type" => "text", "text" => ...}`, `%{"type" => "localImage",
    "path" => ...}`, ...).
    """
    defstruct [:id, :content, :raw]
    @type t :: %__MODULE__{id: String.t(), content: [map], raw: map}
  end

  defmodule Reasoning do
    @moduledoc "`reasoning`: the model's reasoning summary and content (lists of strings)."
    defstruct [:id, :summary, :content, :raw]
    @type t :: %__MODULE__{id: String.t(), summary: [String.t()], content: [String.t()], raw: map}
  end

  defmodule CommandExecution do
    @moduledoc """
    `commandExecution`: a command the agent ran (or asked to run). `exit_code`,
    `aggregated_output` and `duration_ms` are `nil` until it finished.
    """
    defstruct [:id, :command, :cwd, :status, :exit_code, :aggregated_output, :duration_ms, :raw]

    @type t :: %__MODULE__{
            id: String.t(),
            command: String.t(),
            cwd: String.t() | nil,
            status: CodexClient.Item.status(),
            exit_code: integer | nil,
            aggregated_output: String.t() | nil,
            duration_ms: non_neg_integer | nil,
            raw: map
          }
  end

  defmodule FileChange do
    @moduledoc """
    `fileChange`: a patch the agent applies (or asks to apply). `changes` is a list of
    `%{path: path, kind: kind, diff: unified_diff}` (`kind` the decoded `kind` map, e.g.
    `%{"type" => "add"}`).
    """
    defstruct [:id, :changes, :status, :raw]

    @type change :: %{path: String.t(), kind: map | nil, diff: String.t() | nil}
    @type t :: %__MODULE__{
            id: String.t(),
            changes: [change],
            status: CodexClient.Item.status(),
            raw: map
          }
  end

  defmodule McpToolCall do
    @moduledoc "`mcpToolCall`: a call of an MCP server's tool; `result`/`error` as decoded JSON."
    defstruct [:id, :server, :tool, :arguments, :status, :result, :error, :raw]
    @type t :: %__MODULE__{id: String.t(), server: String.t(), tool: String.t(), raw: map}
  end

  defmodule Plan do
    @moduledoc "`plan`: a proposed plan's text."
    defstruct [:id, :text, :raw]
    @type t :: %__MODULE__{id: String.t(), text: String.t(), raw: map}
  end

  defmodule Unknown do
    @moduledoc """
    An item of a kind this module does not decode (`webSearch`, `imageView`, a kind a newer
    Codex adds, ...): `type` is its `type` string (or `nil`), `raw` the decoded JSON.
    """
    defstruct [:type, :id, :raw]
    @type t :: %__MODULE__{type: String.t() | nil, id: String.t() | nil, raw: term}
  end

  @typedoc "An item's status: a known value as an atom, anything else as the server's string."
  @type status :: :in_progress | :completed | :failed | :declined | String.t() | nil

  @type t ::
          AgentMessage.t()
          | UserMessage.t()
          | Reasoning.t()
          | CommandExecution.t()
          | FileChange.t()
          | McpToolCall.t()
          | Plan.t()
          | Unknown.t()

  @doc "Decodes one item (a decoded JSON map, as in `params[\"item\"]`)."
  @spec decode(term) :: t
  def decode(%{"type" => "agentMessage"} = i),
    do: %AgentMessage{id: i["id"], text: i["text"], phase: i["phase"], raw: i}

  def decode(%{"type" => "userMessage"} = i),
    do: %UserMessage{id: i["id"], content: i["content"] || [], raw: i}

  def decode(%{"type" => "reasoning"} = i),
    do: %Reasoning{id: i["id"], summary: i["summary"] || [], content: i["content"] || [], raw: i}

  def decode(%{"type" => "commandExecution"} = i) do
    %CommandExecution{
      id: i["id"],
      command: i["command"],
      cwd: i["cwd"],
      status: Event.status(i["status"]),
      exit_code: i["exitCode"],
      aggregated_output: i["aggregatedOutput"],
      duration_ms: i["durationMs"],
      raw: i
    }
  end

  def decode(%{"type" => "fileChange"} = i) do
    changes =
      for c <- List.wrap(i["changes"]),
          do: if(is_map(c), do: %{path: c["path"], kind: c["kind"], diff: c["diff"]}, else: c)

    %FileChange{id: i["id"], changes: changes, status: Event.status(i["status"]), raw: i}
  end

  def decode(%{"type" => "mcpToolCall"} = i) do
    %McpToolCall{
      id: i["id"],
      server: i["server"],
      tool: i["tool"],
      arguments: i["arguments"],
      status: Event.status(i["status"]),
      result: i["result"],
      error: i["error"],
      raw: i
    }
  end

  def decode(%{"type" => "plan"} = i), do: %Plan{id: i["id"], text: i["text"], raw: i}
  def decode(%{} = i), do: %Unknown{type: type_of(i), id: id_of(i), raw: i}
  def decode(other), do: %Unknown{type: nil, id: nil, raw: other}

  defp type_of(%{"type" => t}) when is_binary(t), do: t
  defp type_of(_), do: nil
  defp id_of(%{"id" => id}) when is_binary(id), do: id
  defp id_of(_), do: nil
end
