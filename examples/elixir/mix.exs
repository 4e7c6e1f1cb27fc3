defmodule Mix.Tasks.Compile.CodexNif do
  @moduledoc "Builds the NIF (c_src/codexclient_nif.c) with make. No Hex dependency (no elixir_make)."
  use Mix.Task.Compiler

  @impl true
  def run(_args) do
    case System.cmd("make", ["--no-print-directory", "priv/codexclient_nif.so"],
           stderr_to_stdout: true,
           cd: Path.dirname(__ENV__.file)
         ) do
      {out, 0} ->
        if out =~ "cc", do: Mix.shell().info(out)
        {:ok, []}

      {out, _} ->
        Mix.shell().error(out)
        {:error, []}
    end
  end
end

defmodule CodexClient.MixProject do
  use Mix.Project

  def project do
    [
      app: :codex_client,
      version: "0.1.0",
      elixir: "~> 1.14",
      compilers: [:codex_nif] ++ Mix.compilers(),
      start_permanent: false,
      deps: []
    ]
  end

  def application, do: [extra_applications: [:logger]]
end
