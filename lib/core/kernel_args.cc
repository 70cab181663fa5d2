/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "kernel_args.h"
#include "kernel_sources.h"

#include <cctype>
#include <map>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace wideband {
namespace core {

namespace {

bool is_identifier_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The source with comments replaced by spaces, newlines kept, so that
// preprocessor lines still start their lines.
std::string without_comments(const std::string& source)
{
    std::string text = source;
    for (size_t i = 0; i + 1 < text.size(); ++i) {
        if (text[i] != '/' || (text[i + 1] != '*' && text[i + 1] != '/'))
            continue;
        const bool block = text[i + 1] == '*';
        const size_t end = block ? text.find("*/", i + 2) : text.find('\n', i);
        const size_t stop =
            end == std::string::npos ? text.size() : end + (block ? 2 : 0);
        for (size_t j = i; j < stop; ++j)
            if (text[j] != '\n')
                text[j] = ' ';
        i = stop - 1;
    }
    return text;
}

size_t skip_space(const std::string& text, size_t pos)
{
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos])))
        ++pos;
    return pos;
}

std::string identifier_at(const std::string& text, size_t pos)
{
    size_t end = pos;
    while (end < text.size() && is_identifier_char(text[end]))
        ++end;
    return text.substr(pos, end - pos);
}

// The position just past the parenthesis that closes text[open] == '(', or npos.
size_t past_group(const std::string& text, size_t open)
{
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
        depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
        if (depth == 0)
            return i + 1;
    }
    return std::string::npos;
}

// The text between the parentheses of `__kernel [__attribute__((...))] void
// name(...)` whose declaration starts after the keyword at \p pos, or npos.
size_t parameter_list_of(const std::string& text, size_t pos, const std::string& name)
{
    pos = skip_space(text, pos);
    while (identifier_at(text, pos) == "__attribute__") {
        pos = skip_space(text, pos + 13);
        if (pos >= text.size() || text[pos] != '(')
            return std::string::npos;
        pos = skip_space(text, past_group(text, pos));
    }
    if (identifier_at(text, pos) != "void")
        return std::string::npos;
    pos = skip_space(text, pos + 4);
    if (identifier_at(text, pos) != name)
        return std::string::npos;
    pos = skip_space(text, pos + name.size());
    return pos < text.size() && text[pos] == '(' ? pos : std::string::npos;
}

std::string trimmed(const std::string& s)
{
    const size_t first = s.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return "";
    return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// The last identifier of one parameter declaration ("__global const float2* src").
std::string parameter_name(const std::string& declaration)
{
    size_t end = declaration.size();
    while (end > 0 && !is_identifier_char(declaration[end - 1]))
        --end;
    size_t begin = end;
    while (begin > 0 && is_identifier_char(declaration[begin - 1]))
        --begin;
    return declaration.substr(begin, end - begin);
}

std::vector<std::string> parameter_names(const std::string& list,
                                         const std::string& where)
{
    if (list.find('#') != std::string::npos)
        throw std::logic_error(
            where + ": a preprocessor line inside the parameter list makes the argument "
                    "indices depend on build options; declare every parameter always");
    std::vector<std::string> names;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= list.size(); ++i) {
        if (i < list.size() && (list[i] != ',' || depth > 0)) {
            depth += list[i] == '(' ? 1 : list[i] == ')' ? -1 : 0;
            continue;
        }
        const std::string declaration = trimmed(list.substr(start, i - start));
        start = i + 1;
        if (declaration.empty() || declaration == "void")
            continue;
        names.push_back(parameter_name(declaration));
        if (names.back().empty())
            throw std::logic_error(where + ": no name in parameter '" + declaration +
                                   "'");
    }
    return names;
}

} // namespace

cl_uint kernel_signature::index(std::string_view parameter) const
{
    for (size_t i = 0; i < parameters.size(); ++i)
        if (parameters[i] == parameter)
            return static_cast<cl_uint>(i);
    throw std::logic_error(kernel + " has no parameter named '" + std::string(parameter) +
                           "'");
}

kernel_signature parse_kernel_signature(const std::string& source,
                                        const std::string& kernel_name,
                                        const std::string& source_label)
{
    const std::string text = without_comments(source);
    const std::string where = "kernel " + kernel_name + " (" + source_label + ")";
    for (size_t pos = text.find("__kernel"); pos != std::string::npos;
         pos = text.find("__kernel", pos + 1)) {
        const bool whole_word = (pos == 0 || !is_identifier_char(text[pos - 1])) &&
                                !is_identifier_char(text[pos + 8]);
        const size_t open = whole_word ? parameter_list_of(text, pos + 8, kernel_name)
                                       : std::string::npos;
        if (open == std::string::npos)
            continue;
        const size_t close = past_group(text, open);
        if (close == std::string::npos)
            throw std::logic_error(where + ": unbalanced parentheses in its declaration");
        return { where, parameter_names(text.substr(open + 1, close - open - 2), where) };
    }
    throw std::logic_error(where + ": no declaration '__kernel void " + kernel_name +
                           "(...)' in the source");
}

const kernel_signature& embedded_kernel_signature(const std::string& source_name,
                                                  const std::string& kernel_name)
{
    static std::mutex mutex;
    // std::map: references to its values stay valid as it grows.
    static std::map<std::pair<std::string, std::string>, kernel_signature> parsed;
    std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(source_name, kernel_name);
    auto found = parsed.find(key);
    if (found == parsed.end())
        found = parsed
                    .emplace(key,
                             parse_kernel_signature(
                                 kernel_source(source_name), kernel_name, source_name))
                    .first;
    return found->second;
}

kernel_args::kernel_args(device_context& context,
                         const std::string& source_name,
                         const std::string& options,
                         const std::string& kernel_name)
    : kernel_args(context.kernel(source_name, options, kernel_name),
                  embedded_kernel_signature(source_name, kernel_name))
{
}

kernel_args::kernel_args(cl::Kernel kernel, const kernel_signature& signature)
    : d_kernel(std::move(kernel)),
      d_signature(&signature),
      d_set(signature.parameters.size(), false)
{
    const cl_uint count = d_kernel.getInfo<CL_KERNEL_NUM_ARGS>();
    if (count != signature.parameters.size())
        throw std::logic_error(signature.kernel + " takes " + std::to_string(count) +
                               " arguments but its source declares " +
                               std::to_string(signature.parameters.size()) +
                               " parameters");
}

const cl::Kernel& kernel_args::ready() const
{
    for (size_t i = 0; i < d_set.size(); ++i)
        if (!d_set[i])
            throw std::logic_error(d_signature->kernel + ": argument '" +
                                   d_signature->parameters[i] + "' was never set");
    return d_kernel;
}

} // namespace core
} // namespace wideband
} // namespace gr
