# bash completion for modsect(1)                           -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Subcommands, options and what each option and argument takes are read
# from modsect itself (`modsect --help`, `modsect CMD --help`, generated
# from the tables in tools/main.c and tools/options.c), so this file never lists them.  Module
# names come from /sys/module/*/sections (under --root DIR when given), or
# from the capture named by --capture FILE.

# _modsect_help BIN [CMD]: the help text, cached per binary and command.
declare -gA _modsect_help_cache 2>/dev/null || true
_modsect_help() {
	local key="$1|${2-}"
	if [[ -z ${_modsect_help_cache[$key]+set} ]]; then
		_modsect_help_cache[$key]=$("$1" ${2:+"$2"} --help 2>/dev/null)
	fi
	printf '%s\n' "${_modsect_help_cache[$key]}"
}

# _modsect_commands BIN: subcommand names (the "Commands:" block).
_modsect_commands() {
	_modsect_help "$1" | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }'
}

# _modsect_options BIN CMD: "NAME ARG" per option (ARG "-" when none), for
# every spelling (-o and --output).
_modsect_options() {
	_modsect_help "$1" "$2" | awk '
		/^Options:/ { on = 1; next }
		on && /^ / {
			sub(/^ +/, "")
			line = $0; sub(/  .*/, "", line)   # drop the help text
			n = split(line, w, /[ ,]+/); arg = "-"
			if (n > 1 && w[n] !~ /^-/) { arg = w[n]; n-- }
			for (i = 1; i <= n; i++) print w[i], arg
		}'
}

# _modsect_positional BIN CMD: the positional argument names from the usage
# line, one per line ("MODULE", "FILE", "ADDR..."), up to " | ".
_modsect_positional() {
	_modsect_help "$1" "$2" | awk 'NR == 1 {
		sub(/^Usage: modsect [^ ]+ (\[OPTIONS\])? */, ""); sub(/ \|.*/, "")
		n = split($0, w, / +/)
		for (i = 1; i <= n; i++) {
			if (w[i] ~ /^-/) { i++; continue }
			gsub(/[][]/, "", w[i]); if (w[i] != "") print w[i]
		}
		exit }'
}

# _modsect_modules ROOT CAPTURE: module names, live or from a capture.
_modsect_modules() {
	local root=$1 cap=$2 d
	if [[ -n $cap && $cap != - ]]; then
		[[ -r $cap ]] || return
		awk '
			$1 == "section" && NF == 4 { print $2; next }
			$1 == "module" && NF == 3 { print $2; next }
			NF == 3 && $3 ~ /^0x[0-9a-fA-F]+$/ { print $1; next }
			/^\/sys\/module\/[^\/]+\/sections\// { split($0, p, "/"); print p[4] }
		' "$cap" 2>/dev/null | sort -u
		return
	fi
	for d in "$root"/sys/module/*/sections; do
		[[ -d $d ]] || continue
		d=${d%/sections}
		printf '%s\n' "${d##*/}"
	done
}

_modsect_files() {
	local IFS=$'\n' kind=$1 cur=$2
	# numbers (--baud N, --timeout SECONDS) have nothing to complete
	[[ $kind == N || $kind == SECONDS ]] && return
	compopt -o filenames 2>/dev/null
	if [[ $kind == DIR ]]; then
		COMPREPLY+=($(compgen -d -- "$cur"))
	else
		COMPREPLY+=($(compgen -f -- "$cur"))
	fi
}

_modsect() {
	local cur=${COMP_WORDS[COMP_CWORD]} bin=${COMP_WORDS[0]} cmd= i w
	COMPREPLY=()
	# The modsect being completed, if it can be run; else the one in PATH.
	bin=${bin/#\~/$HOME}
	if [[ $bin != */* ]] || [[ ! -x $bin ]]; then
		bin=$(type -P modsect) || return
	fi

	# Find the subcommand (the first word after modsect).
	if ((COMP_CWORD == 1)); then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_modsect_commands "$bin")" -- "$cur"))
		fi
		return
	fi
	cmd=${COMP_WORDS[1]}
	local opts
	opts=$(_modsect_options "$bin" "$cmd")
	[[ -n $opts ]] || return

	# Walk the words before the cursor: options, their arguments (also as
	# --opt=ARG, which bash splits into "--opt" "=" "ARG"), positionals.
	local -A takes=()
	local name arg
	while read -r name arg; do takes[$name]=$arg; done <<<"$opts"
	local npos=0 root= cap= want= dashdash=
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -n $dashdash || $w != -* || $w == - ]]; then
			npos=$((npos + 1))
			continue
		fi
		[[ $w == -- ]] && { dashdash=1; continue; }
		arg=${takes[$w]-}
		[[ -n $arg && $arg != - ]] || continue
		# the option's argument: the next word, or the one after "="
		if [[ ${COMP_WORDS[i + 1]-} == = ]]; then i=$((i + 1)); fi
		i=$((i + 1))
		((i < COMP_CWORD)) || { want=$arg; break; }
		case $w in
		--root) root=${COMP_WORDS[i]} ;;
		--capture) cap=${COMP_WORDS[i]} ;;
		esac
	done
	# The cursor word after "--opt=": complete the option's argument.
	if [[ -z $want && $cur == = ]]; then
		want=${takes[${COMP_WORDS[COMP_CWORD - 1]}]-}
		cur=
	elif [[ -z $want && ${COMP_WORDS[COMP_CWORD - 1]} == = ]]; then
		want=${takes[${COMP_WORDS[COMP_CWORD - 2]}]-}
	fi
	# The words after the cursor may name --root or --capture too.
	for ((i = COMP_CWORD + 1; i < ${#COMP_WORDS[@]}; i++)); do
		case ${COMP_WORDS[i]} in
		--root) root=${COMP_WORDS[i + 1]-} ;;
		--capture) cap=${COMP_WORDS[i + 1]-} ;;
		esac
	done
	root=${root/#\~/$HOME}
	cap=${cap/#\~/$HOME}
	if [[ -n $want && $want != - ]]; then
		_modsect_files "$want" "$cur"
		return
	fi

	if [[ -z $dashdash && $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(printf '%s\n' "$opts" | awk '{ print $1 }') --version" -- "$cur"))
		return
	fi

	# A positional argument: what the usage line names at this position.
	local kind= p n=0
	while read -r p; do
		[[ -n $p ]] || continue
		kind=$p
		if ((n == npos)) || [[ $p == *... ]]; then break; fi
		n=$((n + 1))
		kind=
	done < <(_modsect_positional "$bin" "$cmd")
	case ${kind%...} in
	MODULE) COMPREPLY=($(compgen -W "$(_modsect_modules "$root" "$cap")" -- "$cur")) ;;
	FILE) _modsect_files FILE "$cur" ;;
	esac
}
complete -F _modsect modsect modsect-static
