# Copyright 2026 gr-wideband authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later

# Test driver: runs a program and checks its exit status and output.
#
#   cmake [-DRC=<status>] [-DOUT_LINES=<count>] [-DERR_LINES=<count>]
#         [-DREGEX=<re>] [-DNOT_REGEX=<re>]
#         [-DDIR=<folder> [-DDIR_FILES=<name>,...] [-DFILE_REGEX=<re>]]
#         -P check_app.cmake -- <program> [<argument>...]
#
#   RC         the exit status the program must return (default 0)
#   OUT_LINES  the number of lines it must print on stdout, when given
#   ERR_LINES  the number of lines it must print on stderr, when given
#   REGEX      a regular expression that its stdout followed by its stderr must
#              match, when given
#   NOT_REGEX  a regular expression that they must not match, when given
#   DIR        a folder for the files the program writes, emptied before the run
#   DIR_FILES  the names of the files DIR must hold afterwards, and nothing else
#              (default: none; a temporary file left over counts)
#   FILE_REGEX a regular expression that each of those files must match

set(cmd)
set(take OFF)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${last})
    if(take)
        list(APPEND cmd "${CMAKE_ARGV${i}}")
    elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
        set(take ON)
    endif()
endforeach()
if(NOT cmd)
    message(FATAL_ERROR "check_app.cmake: no program given after --")
endif()
if(NOT DEFINED RC)
    set(RC 0)
endif()

if(DEFINED DIR)
    file(REMOVE_RECURSE "${DIR}")
    file(MAKE_DIRECTORY "${DIR}")
endif()

execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
set(out "${stdout}${stderr}")
string(REPLACE ";" " " shown "${cmd}")
message("$ ${shown}\n--- stdout\n${stdout}--- stderr\n${stderr}--- exit status ${rc}")

function(count_lines text result)
    if(NOT text STREQUAL "" AND NOT text MATCHES "\n$")
        string(APPEND text "\n")
    endif()
    string(REGEX MATCHALL "\n" newlines "${text}")
    list(LENGTH newlines count)
    set(${result} ${count} PARENT_SCOPE)
endfunction()

set(problems)
if(NOT "${rc}" STREQUAL "${RC}")
    list(APPEND problems "exit status ${rc}, expected ${RC}")
endif()
foreach(stream OUT ERR)
    if(DEFINED ${stream}_LINES)
        string(TOLOWER "std${stream}" name)
        count_lines("${${name}}" count)
        if(NOT count EQUAL ${stream}_LINES)
            list(APPEND problems "${count} lines on ${name}, expected ${${stream}_LINES}")
        endif()
    endif()
endforeach()
if(DEFINED REGEX AND NOT out MATCHES "${REGEX}")
    list(APPEND problems "output does not match \"${REGEX}\"")
endif()
if(DEFINED NOT_REGEX AND out MATCHES "${NOT_REGEX}")
    list(APPEND problems "output matches \"${NOT_REGEX}\"")
endif()
if(DEFINED DIR)
    file(GLOB left RELATIVE "${DIR}" LIST_DIRECTORIES true "${DIR}/*") # hidden ones too
    list(SORT left)
    string(REPLACE "," ";" expected "${DIR_FILES}")
    list(SORT expected)
    if(NOT "${left}" STREQUAL "${expected}")
        list(APPEND problems "${DIR} holds \"${left}\", expected \"${expected}\"")
    endif()
    if(DEFINED FILE_REGEX)
        foreach(name IN LISTS left)
            file(READ "${DIR}/${name}" content)
            if(NOT content MATCHES "${FILE_REGEX}")
                list(APPEND problems "${name} does not match \"${FILE_REGEX}\"")
            endif()
        endforeach()
    endif()
endif()
if(problems)
    string(REPLACE ";" "; " problems "${problems}")
    message(FATAL_ERROR "FAILED: ${problems}")
endif()
