/* -*- c++ -*- */
/*
 * Copyright 2026 gr-wideband authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/logger.h>
#include <gnuradio/wideband/thread_errors.h>
#include <spdlog/sinks/base_sink.h>

#include <string_view>
#include <memory>
#include <mutex>

namespace gr {
namespace wideband {
namespace {

// What gr::thread::thread_body_wrapper (gnuradio/thread/thread_body_wrapper.h)
// logs, through a logger of this name, when its thread ends on an exception:
// "ERROR thread[<thread>]: <what>".
constexpr std::string_view wrapper_logger_name = "thread_body_wrapper";
constexpr std::string_view wrapper_error_start = "ERROR thread[";
constexpr std::string_view redundant_level_word = "ERROR ";

class thread_error_sink : public spdlog::sinks::base_sink<std::mutex>
{
public:
    std::vector<std::string> errors()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        return d_errors;
    }

    void clear()
    {
        std::lock_guard<std::mutex> lock(mutex_);
        d_errors.clear();
    }

protected:
    // Called with mutex_ held (base_sink::log).
    void sink_it_(const spdlog::details::log_msg& msg) override
    {
        const std::string_view logger(msg.logger_name.data(), msg.logger_name.size());
        std::string_view text(msg.payload.data(), msg.payload.size());
        if (logger != wrapper_logger_name ||
            text.substr(0, wrapper_error_start.size()) != wrapper_error_start) {
            return;
        }
        text.remove_prefix(redundant_level_word.size());
        // Some exceptions' messages end in a newline (file_sink's does).
        d_errors.emplace_back(text.substr(0, text.find_last_not_of(" \t\r\n") + 1));
    }

    void flush_() override {}

private:
    std::vector<std::string> d_errors;
};

// Shared with GNU Radio's logger, which may still log after this library's
// statics are destroyed at exit.
const std::shared_ptr<thread_error_sink>& error_sink()
{
    static const auto sink = [] {
        auto created = std::make_shared<thread_error_sink>();
        created->set_level(spdlog::level::err);
        return created;
    }();
    return sink;
}

} // namespace

void watch_thread_errors()
{
    static std::once_flag added;
    std::call_once(added,
                   [] { gr::logging::singleton().add_default_sink(error_sink()); });
}

std::vector<std::string> thread_errors() { return error_sink()->errors(); }

void clear_thread_errors() { error_sink()->clear(); }

} // namespace wideband
} // namespace gr
